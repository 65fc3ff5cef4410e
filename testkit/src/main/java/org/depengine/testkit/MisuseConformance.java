package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.AsyncFn;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.api.WaitTimeoutException;
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

    @Test
    void anUnavailableDeviceGivesTheReasonAndRegistersNothing() {
        VarHandle v = engine.newVariable("v");
        Context off = Context.of(TestDeviceProviders.UNAVAILABLE_TYPE, 0);
        assertMessage(IllegalStateException.class, () -> engine.pushSync(NOP, off, List.of(), List.of(v)),
                TestDeviceProviders.UNAVAILABLE_TYPE, "unavailable", TestDeviceProviders.UNAVAILABLE_REASON);
        assertMessage(IllegalStateException.class,
                () -> engine.pushAsync(ANOP, off, List.of(v), List.of(), FnProperty.ASYNC, 0, "x"), "unavailable");
        engine.waitForAll();
        assertEquals(0, v.version(), "a push that throws has registered nothing");
        engine.pushSync(NOP, Context.cpu(), List.of(), List.of(v)); // not blocked by the refused pushes
        engine.waitForVar(v, BOUND);
        assertEquals(1, v.version());
    }

    @Test
    void aDeviceIdThatDoesNotExistIsNamed() {
        VarHandle v = engine.newVariable("v");
        Context missing = Context.of(TestDeviceProviders.EMPTY_TYPE, 3);
        assertMessage(IllegalArgumentException.class, () -> engine.pushSync(NOP, missing, List.of(), List.of(v)),
                TestDeviceProviders.EMPTY_TYPE + ":3", "does not exist", "no device of type '" + TestDeviceProviders.EMPTY_TYPE + "' found");
        engine.waitForAll();
        assertEquals(0, v.version());
    }

    @Test
    void everyPushAfterCloseNamesTheEngineAndTheOp() {
        VarHandle v = engine.newVariable("v");
        OprHandle op = engine.newOperator(ANOP, List.of(), List.of(v), FnProperty.NORMAL, "reusable");
        engine.close();
        String name = engineName();
        assertMessage(IllegalStateException.class,
                () -> engine.pushSync(NOP, Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "late-sync"),
                "'" + name + "'", "closed", "late-sync", "create a new engine");
        assertMessage(IllegalStateException.class,
                () -> engine.pushAsync(ANOP, Context.cpu(), List.of(), List.of(v), FnProperty.ASYNC, 0, "late-async"),
                "closed", "late-async");
        assertMessage(IllegalStateException.class, () -> engine.push(op, Context.cpu(), 0, false), "closed", "reusable");
        assertMessage(IllegalStateException.class, () -> engine.deleteVariable(NOP, Context.cpu(), v), "closed");
        assertEquals(0, v.version());
    }

    @Test
    void aBoundedWaitForVarThatRunsOutNamesTheVariableTheWriterAndTheEngine() throws Exception {
        VarHandle v = engine.newVariable("slow-output");
        Held writer = pushHeld(List.of(), List.of(v), "slow-writer");
        try {
            assertMessage(WaitTimeoutException.class, () -> engine.waitForVar(v, Duration.ofMillis(20)),
                    "waitForVar(slow-output)", "timed out", "slow-writer", "'" + engineName() + "'");
        } finally {
            writer.complete();
        }
        engine.waitForVar(v, BOUND);
    }

    @Test
    void aBoundedWaitForAllThatRunsOutSaysWhatIsPending() throws Exception {
        Held writer = pushHeld(List.of(), List.of(engine.newVariable("slow-output")), "slow-writer");
        try {
            assertMessage(WaitTimeoutException.class, () -> engine.waitForAll(Duration.ofMillis(20)),
                    "waitForAll()", "timed out", "pending", "'" + engineName() + "'");
        } finally {
            writer.complete();
        }
        engine.waitForAll(BOUND);
    }

    @Test
    void aNullTimeoutIsNamed() {
        VarHandle v = engine.newVariable("v");
        assertMessage(NullPointerException.class, () -> engine.waitForVar(v, null), "timeout");
        assertMessage(NullPointerException.class, () -> engine.waitForAll(null), "timeout");
    }

    @Test
    void handlesOfAnotherEngineAreRefusedByEveryCall() {
        try (Engine other = newEngine()) {
            VarHandle foreign = other.newVariable("foreign");
            OprHandle foreignOp = other.newOperator(ANOP, List.of(), List.of(), FnProperty.NORMAL, "foreign-op");
            VarHandle mine = engine.newVariable("mine");
            assertMessage(IllegalArgumentException.class,
                    () -> engine.pushSync(NOP, Context.cpu(), List.of(), List.of(mine, foreign)), "mutableVars[1]", "foreign", "another engine");
            assertMessage(IllegalArgumentException.class, () -> engine.waitForVar(foreign), "foreign", "another engine");
            assertMessage(IllegalArgumentException.class, () -> engine.waitForVar(foreign, BOUND), "foreign", "another engine");
            assertMessage(IllegalArgumentException.class, () -> engine.deleteVariable(NOP, Context.cpu(), foreign), "foreign", "another engine");
            assertMessage(IllegalArgumentException.class, () -> engine.deleteOperator(foreignOp), "foreign-op", "another engine");
            assertMessage(IllegalArgumentException.class,
                    () -> engine.newOperator(ANOP, List.of(foreign), List.of(), FnProperty.NORMAL, "op"), "foreign", "another engine");
            engine.waitForAll();
            assertEquals(0, mine.version(), "nothing was registered");
            assertEquals(0, foreign.version());
        }
    }

    @Test
    void aDeletedVariableCannotBeUsedByANewOperatorOrAWait() {
        VarHandle v = engine.newVariable("freed-buffer");
        engine.deleteVariable(NOP, Context.cpu(), v);
        assertMessage(IllegalStateException.class,
                () -> engine.newOperator(ANOP, List.of(), List.of(v), FnProperty.NORMAL, "late-op"), "freed-buffer", "deleted", "late-op");
        assertMessage(IllegalStateException.class, () -> engine.waitForVar(v, BOUND), "freed-buffer", "deleted");
    }

    @Test
    void waitsInsideAnOpSayWhatToDoInstead() {
        VarHandle v = engine.newVariable("v");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        engine.pushSync(ctx -> {
            try {
                engine.waitForVar(engine.newVariable("other"), BOUND);
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "impatient");
        engine.waitForVar(v, BOUND);
        IllegalStateException e = assertInstanceOf(IllegalStateException.class, thrown.get());
        assertTrue(e.getMessage().contains("waitForVar(other)") && e.getMessage().contains("'impatient'")
                && e.getMessage().contains("Push a dependent op instead"), e.getMessage());
    }

    @Test
    void aNullEngineNameIsNamed() {
        assertMessage(NullPointerException.class, () -> Engine.create(null), "name");
    }
}
