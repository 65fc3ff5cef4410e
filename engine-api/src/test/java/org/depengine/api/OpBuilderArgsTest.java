package org.depengine.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link OpBuilder#arg}: what reaches the engine, and the errors for bad keys. */
class OpBuilderArgsTest {
    /** The pushes an engine received: the overload's parameter count and, for the 8-parameter one, the args. */
    private final List<String> pushes = new ArrayList<>();
    private final List<Map<String, ?>> args = new ArrayList<>();

    /** An engine whose abstract methods only record pushes; default methods run as written. */
    @SuppressWarnings("unchecked") // the proxy's argument is the Map the builder passed
    private Engine engine(boolean overridesArgs) {
        InvocationHandler h = (proxy, m, a) -> {
            if (m.getName().equals("pushSync") || m.getName().equals("pushAsync")) {
                if (a.length == 8 && overridesArgs) {
                    pushes.add(m.getName() + "/8");
                    args.add((Map<String, ?>) a[7]);
                    return null;
                }
                if (a.length == 7) {
                    pushes.add(m.getName() + "/7 " + a[6]);
                    return null;
                }
            }
            if (m.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, m, a);
            }
            return objectMethod(proxy, m, a);
        };
        return (Engine) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Engine.class}, h);
    }

    private static Object objectMethod(Object proxy, Method m, Object[] a) {
        switch (m.getName()) {
            case "hashCode":
                return System.identityHashCode(proxy);
            case "equals":
                return proxy == a[0];
            case "toString":
            case "name":
                return "recording engine";
            default:
                throw new UnsupportedOperationException(m.getName());
        }
    }

    @Test
    void withoutArgumentsTheBuilderUsesThePlainOverload() {
        Engine e = engine(true);
        e.op("step").run(ctx -> { });
        e.op("step").runAsync((ctx, done) -> done.complete());
        assertEquals(List.of("pushSync/7 step", "pushAsync/7 step"), pushes);
    }

    @Test
    @SuppressWarnings("unchecked") // to try writing to the map the engine received
    void argumentsReachTheEngineInTheOrderGivenWithTheirTypes() {
        Engine e = engine(true);
        OpBuilder b = e.op("shuffle").arg("epoch", 3).arg("lr", 0.5).arg("warm", true).arg("phase", "train");
        b.run(ctx -> { });
        b.runAsync((ctx, done) -> done.complete()); // a builder pushes again with the same arguments
        assertEquals(List.of("pushSync/8", "pushAsync/8"), pushes);
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("epoch", 3L);
        expected.put("lr", 0.5);
        expected.put("warm", true);
        expected.put("phase", "train");
        assertEquals(List.of(expected, expected), args);
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(args.get(0).keySet()), "order kept");
        assertThrows(UnsupportedOperationException.class, () -> ((Map<String, Object>) args.get(0)).put("x", 1L));
    }

    @Test
    void badKeysAreRefusedNamingWhatIsWrong() {
        OpBuilder b = engine(true).op("shuffle").arg("epoch", 1);
        NullPointerException npe = assertThrows(NullPointerException.class, () -> b.arg(null, 2));
        assertTrue(npe.getMessage().contains("key"), npe.getMessage());
        IllegalArgumentException dup = assertThrows(IllegalArgumentException.class, () -> b.arg("epoch", 2));
        assertTrue(dup.getMessage().contains("'epoch'") && dup.getMessage().contains("already")
                && dup.getMessage().contains("shuffle"), dup.getMessage());
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class, () -> b.arg(" ", true));
        assertTrue(blank.getMessage().contains("blank"), blank.getMessage());
        NullPointerException nullValue = assertThrows(NullPointerException.class, () -> b.arg("phase", (String) null));
        assertTrue(nullValue.getMessage().contains("'phase'"), nullValue.getMessage());
        b.run(ctx -> { });
        assertEquals(List.of(Map.of("epoch", 1L)), args, "the refused calls changed nothing");
    }

    @Test
    void anEngineThatReportsNoArgumentsDropsThemAndStillPushes() {
        Engine e = engine(false);
        e.op("shuffle").arg("epoch", 1).run(ctx -> { });
        assertEquals(List.of("pushSync/7 shuffle"), pushes);
        assertThrows(NullPointerException.class, () -> e.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(),
                FnProperty.NORMAL, 0, "x", null));
    }
}
