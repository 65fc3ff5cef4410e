package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.AsyncFn;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every misuse gets a clear error of the documented type, and nothing is registered. */
public abstract class MisuseConformance extends EngineTestBase {
    private static final SyncFn NOP = ctx -> { };
    private static final AsyncFn ANOP = (ctx, done) -> done.complete();

    private static void assertMessage(Class<? extends Throwable> type, Executable call, String... fragments) {
        Throwable t = assertThrows(type, call);
        for (String f : fragments) {
            assertTrue(t.getMessage() != null && t.getMessage().contains(f),
                    "message should contain '" + f + "': " + t.getMessage());
        }
    }

    @Test
    void nullArgumentsAreNamed() {
        VarHandle v = engine.newVariable();
        Context c = Context.cpu();
        List<VarHandle> none = List.of();
        assertMessage(NullPointerException.class, () -> engine.pushSync(null, c, none, none), "fn");
        assertMessage(NullPointerException.class, () -> engine.pushSync(NOP, null, none, none), "ctx");
        assertMessage(NullPointerException.class, () -> engine.pushSync(NOP, c, null, none), "constVars");
        assertMessage(NullPointerException.class, () -> engine.pushSync(NOP, c, none, null), "mutableVars");
        assertMessage(NullPointerException.class, () -> engine.pushSync(NOP, c, none, none, null, 0, "x"), "prop");
        assertMessage(NullPointerException.class, () -> engine.pushSync(NOP, c, Arrays.asList(v, null), none), "constVars[1]");
        assertMessage(NullPointerException.class, () -> engine.pushAsync(null, c, none, none, FnProperty.NORMAL, 0, null), "fn");
        assertMessage(NullPointerException.class, () -> engine.newOperator(null, none, none, FnProperty.NORMAL, "x"), "fn");
        assertMessage(NullPointerException.class, () -> engine.push(null, c, 0, false), "op");
        assertMessage(NullPointerException.class, () -> engine.waitForVar(null), "var");
        assertMessage(NullPointerException.class, () -> engine.newVariable(null), "name");
        assertMessage(NullPointerException.class, () -> engine.deleteVariable(null, c, v), "deleteFn");
        assertMessage(NullPointerException.class, () -> engine.deleteVariable(NOP, c, null), "var");
        assertMessage(NullPointerException.class, () -> engine.addListener(null), "listener");
        engine.waitForAll();
        assertEquals(0, v.version(), "nothing was registered");
    }

    @Test
    void aVariableInBothListsIsNamed() {
        VarHandle v = engine.newVariable("weights");
        assertMessage(IllegalArgumentException.class,
                () -> engine.pushSync(NOP, Context.cpu(), List.of(v), List.of(v)), "weights", "both");
        assertMessage(IllegalArgumentException.class,
                () -> engine.newOperator(ANOP, List.of(v), List.of(v), FnProperty.NORMAL, "op"), "weights", "both");
        engine.waitForVar(v); // nothing was registered: no deadlock
        assertEquals(0, v.version());
    }

    @Test
    void aDeletedVariableIsNamed() {
        VarHandle v = engine.newVariable("gone");
        engine.deleteVariable(NOP, Context.cpu(), v);
        assertMessage(IllegalStateException.class, () -> engine.pushSync(NOP, Context.cpu(), List.of(v), List.of()), "gone", "deleted");
        assertMessage(IllegalStateException.class, () -> engine.pushSync(NOP, Context.cpu(), List.of(), List.of(v)), "gone", "deleted");
        assertMessage(IllegalStateException.class, () -> engine.deleteVariable(NOP, Context.cpu(), v), "gone", "already deleted");
        assertMessage(IllegalStateException.class, () -> engine.waitForVar(v), "gone", "deleted");
    }

    @Test
    void anOperatorWhoseVariableWasDeletedCannotBePushed() {
        VarHandle v = engine.newVariable("gone");
        OprHandle op = engine.newOperator(ANOP, List.of(v), List.of(), FnProperty.NORMAL, "reader");
        engine.deleteVariable(NOP, Context.cpu(), v);
        assertMessage(IllegalStateException.class, () -> engine.push(op, Context.cpu(), 0, false), "gone", "deleted");
    }

    @Test
    void aDeletedOperatorIsNamed() {
        OprHandle op = engine.newOperator(ANOP, List.of(), List.of(engine.newVariable()), FnProperty.NORMAL, "conv1");
        engine.push(op, Context.cpu(), 0, false);
        engine.deleteOperator(op);
        assertMessage(IllegalStateException.class, () -> engine.push(op, Context.cpu(), 0, false), "conv1", "deleted");
        assertMessage(IllegalStateException.class, () -> engine.deleteOperator(op), "conv1", "already deleted");
        engine.waitForAll();
    }

    @Test
    void anUnknownDeviceTypeNamesItAndListsTheTypesFound() {
        assertMessage(IllegalArgumentException.class,
                () -> engine.pushSync(NOP, Context.of("tpu", 0), List.of(), List.of()), "tpu", "cpu");
    }

    @Test
    void variablesAndOperatorsOfAnotherEngineAreRefused() {
        try (Engine other = newEngine()) {
            VarHandle foreign = other.newVariable("foreign");
            OprHandle op = other.newOperator(ANOP, List.of(), List.of(), FnProperty.NORMAL, "foreign-op");
            assertMessage(IllegalArgumentException.class,
                    () -> engine.pushSync(NOP, Context.cpu(), List.of(foreign), List.of()), "foreign", "another engine");
            assertMessage(IllegalArgumentException.class, () -> engine.push(op, Context.cpu(), 0, false), "foreign-op", "another engine");
        }
    }

    @Test
    void pushAfterCloseIsAnIllegalStateException() {
        engine.close();
        engine.close(); // idempotent
        assertTrue(engine.isClosed());
        assertMessage(IllegalStateException.class, () -> engine.pushSync(NOP, Context.cpu(), List.of(), List.of()), "closed");
    }

    @Test
    void waitsAndCloseFromInsideAnOpAreRefusedNotDeadlocked() {
        VarHandle v = engine.newVariable("v");
        VarHandle out = engine.newVariable("out");
        engine.pushSync(ctx -> engine.waitForVar(v), Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "waits-on-itself");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(v));
        IllegalStateException cause = assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(cause.getMessage().contains("waits-on-itself") && cause.getMessage().contains("inside op"), cause.getMessage());

        engine.pushSync(ctx -> engine.waitForAll(), Context.cpu(), List.of(), List.of(out), FnProperty.NORMAL, 0, "waits-all");
        assertInstanceOf(IllegalStateException.class, assertThrows(EngineException.class, () -> engine.waitForVar(out)).getCause());

        engine.pushSync(ctx -> engine.close(), Context.cpu(), List.of(), List.of(out), FnProperty.NORMAL, 0, "closes");
        assertInstanceOf(IllegalStateException.class, assertThrows(EngineException.class, () -> engine.waitForVar(out)).getCause());
        assertTrue(!engine.isClosed());
    }

    @Test
    void anUnknownEngineNameListsTheEnginesFound() {
        assertMessage(IllegalStateException.class, () -> Engine.create("warp-drive"), "warp-drive", engineName(), "EngineProvider");
    }

    @Test
    void pushesFromInsideAnOpAreAllowed() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        AtomicInteger order = new AtomicInteger();
        int[] seen = new int[2];
        engine.pushSync(ctx -> {
            seen[0] = order.incrementAndGet();
            // Depends on this very op (writes a): must run after it, without deadlocking the pusher.
            engine.pushSync(c2 -> seen[1] = order.incrementAndGet(), Context.cpu(), List.of(a), List.of(b));
        }, Context.cpu(), List.of(), List.of(a), FnProperty.NORMAL, 0, "outer");
        engine.waitForAll();
        engine.waitForVar(b);
        assertEquals(1, seen[0]);
        assertEquals(2, seen[1]);
    }
}
