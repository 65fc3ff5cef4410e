package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.testkit.MisbehavingDevices.Offence;
import org.junit.jupiter.api.Test;

/**
 * A device plugin that breaks its contract ({@link MisbehavingDevices}) fails the ops it touches, with
 * an {@link EngineException} naming the device type and the offence; their dependants are skipped as
 * for any failure; the engine's workers and other devices keep working; {@code close()} returns. A
 * second done report is ignored. Waits and the close are bounded so a broken engine fails, not hangs.
 */
public abstract class MisbehavingDeviceConformance extends EngineTestBase {
    /** Bound on each wait here: a misbehaving plugin must fail an op at once, not after a timeout. */
    private static final Duration SHORT = Duration.ofSeconds(15);

    /**
     * The scenario of the issue: a device op writes {@code v}, a copy op on the same device reads it,
     * a CPU op reads the copy's output. Returns whether the CPU op ran; the device op's failure (if
     * any) is reported by the wait on the CPU op's output, which is returned through {@code failure}.
     */
    private boolean pushScenario(Offence offence, EngineException[] failure) {
        Context dev = offence.context();
        VarHandle v = engine.newVariable("v");
        VarHandle copy = engine.newVariable("copy");
        VarHandle out = engine.newVariable("out");
        AtomicBoolean cpuRan = new AtomicBoolean();
        engine.pushSync(ctx -> { }, dev, List.of(), List.of(v), FnProperty.NORMAL, 0, "devWrite");
        engine.pushSync(ctx -> { }, dev, List.of(v), List.of(copy), FnProperty.COPY_FROM_DEVICE, 0, "devCopy");
        engine.pushSync(ctx -> cpuRan.set(true), Context.cpu(), List.of(copy), List.of(out), FnProperty.NORMAL, 0, "cpuRead");
        try {
            engine.waitForVar(out, SHORT);
        } catch (EngineException e) {
            failure[0] = e;
        }
        return cpuRan.get();
    }

    private void assertFailsNaming(Offence offence, String what) throws InterruptedException {
        EngineException[] failure = new EngineException[1];
        boolean cpuRan = pushScenario(offence, failure);
        EngineException e = failure[0];
        assertTrue(e != null, "the device op of a plugin that " + what + " did not fail");
        String msg = String.valueOf(e.getMessage());
        assertTrue(msg.contains(MisbehavingDevices.TYPE), "the failure names the device type: " + msg);
        assertTrue(msg.contains(what), "the failure names the offence '" + what + "': " + msg);
        assertTrue(e.getCause() instanceof EngineException, "the op's failure is an EngineException: " + e.getCause());
        assertFalse(cpuRan, "the CPU op behind the failed device op is skipped");
        assertEngineStillWorks(offence);
        // The same device again: fails again, promptly.
        VarHandle again = engine.newVariable("again");
        engine.pushSync(ctx -> { }, offence.context(), List.of(), List.of(again), FnProperty.NORMAL, 0, "devAgain");
        EngineException second = assertThrows(EngineException.class, () -> engine.waitForVar(again, SHORT));
        assertTrue(String.valueOf(second.getMessage()).contains(what), second.getMessage());
        closeBounded();
    }

    /** CPU ops and a well-behaved device op still run after the plugin misbehaved. */
    private void assertEngineStillWorks(Offence offence) {
        for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors() + 2; i++) {
            VarHandle x = engine.newVariable("after-" + i);
            int[] seen = new int[1];
            engine.pushSync(ctx -> seen[0]++, Context.cpu(), List.of(), List.of(x), FnProperty.NORMAL, 0, "cpuAfter" + i);
            engine.waitForVar(x, SHORT);
            assertEquals(1, seen[0], "a CPU op pushed after " + offence + " ran");
        }
        VarHandle y = engine.newVariable("good");
        engine.pushSync(ctx -> { }, Offence.NONE.context(), List.of(), List.of(y), FnProperty.NORMAL, 0, "goodDevice");
        engine.waitForVar(y, SHORT);
        assertEquals(1, y.version(), "another device still runs ops");
    }

    /** Closes the engine on a helper thread, failing if it does not return within the bound. */
    protected final void closeBounded() throws InterruptedException {
        Thread closer = new Thread(engine::close, "bounded-close");
        closer.setDaemon(true);
        closer.start();
        closer.join(SHORT.toMillis());
        assertFalse(closer.isAlive(), "close() did not return");
    }

    @Test
    void aWellBehavedAsyncDeviceRunsTheScenario() throws InterruptedException {
        EngineException[] failure = new EngineException[1];
        assertTrue(pushScenario(Offence.NONE, failure), "the CPU op ran");
        assertEquals(null, failure[0]);
        closeBounded();
    }

    @Test
    void createStreamThrowingFailsTheOp() throws InterruptedException {
        assertFailsNaming(Offence.CREATE_STREAM_THROWS, "createStream");
    }

    @Test
    void createStreamReturningNullFailsTheOp() throws InterruptedException {
        assertFailsNaming(Offence.CREATE_STREAM_RETURNS_NULL, "returned null");
    }

    @Test
    void bindThrowingFailsTheOp() throws InterruptedException {
        assertFailsNaming(Offence.BIND_THROWS, "bindToCurrentThread");
    }

    @Test
    void policyReturningNullFailsTheOp() throws InterruptedException {
        assertFailsNaming(Offence.POLICY_RETURNS_NULL, "policy");
    }

    @Test
    void whenDoneThrowingFailsTheOp() throws InterruptedException {
        assertFailsNaming(Offence.WHEN_DONE_THROWS, "whenDone");
    }

    @Test
    void aSecondDoneReportIsIgnored() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            EngineException[] failure = new EngineException[1];
            assertTrue(pushScenario(Offence.DONE_TWICE, failure), "the CPU op behind a device op reported done twice ran");
            assertEquals(null, failure[0], "a second done report is not a failure of the op");
        }
        assertEngineStillWorks(Offence.DONE_TWICE);
        closeBounded();
    }
}
