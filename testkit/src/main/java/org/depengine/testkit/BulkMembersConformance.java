package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Bulk;
import org.depengine.api.EngineException;
import org.depengine.api.VarHandle;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.junit.jupiter.api.Test;

/**
 * A bulk's members as listeners see them ({@code OpListener.memberFinished}): each member of a merged
 * op once, in push order, between the merged op's {@code started} and {@code finished}, on the thread
 * that ran it, with its outcome (a throwing member FAILED, the members after it SKIPPED); nothing for
 * ops that were not merged; a listener that throws from it is contained like any other. The events
 * are read after {@code waitForAll}, which returns after every op's {@code finished}.
 */
public abstract class BulkMembersConformance extends EngineTestBase {

    /** One event as text, with the time and thread it was reported at. */
    private record Event(String text, long nanos, long nanosEnd, Thread thread) {
    }

    /** Records started, member and finished events of merged ops, in the order reported. */
    private static final class Recorder implements OpListener {
        final List<Event> events = new ArrayList<>();

        private synchronized void add(String text, long start, long end) {
            events.add(new Event(text, start, end, Thread.currentThread()));
        }

        @Override
        public void started(OpInfo op, long nanoTime) {
            add("started " + op.name(), nanoTime, nanoTime);
        }

        @Override
        public void memberFinished(OpInfo bulk, int index, String memberName, OpInfo.Outcome outcome,
                                   long startNanos, long endNanos) {
            add("member " + bulk.name() + " #" + index + " " + memberName + " " + outcome, startNanos, endNanos);
        }

        @Override
        public void finished(OpInfo op, long nanoTime) {
            add("finished " + op.name(), nanoTime, nanoTime);
        }

        synchronized List<Event> snapshot() {
            return new ArrayList<>(events);
        }

        List<String> texts() {
            return snapshot().stream().map(Event::text).toList();
        }
    }

    private Recorder listen() {
        Recorder r = new Recorder();
        engine.addListener(r);
        return r;
    }

    @Test
    void membersAreReportedInPushOrderInsideTheMergedOp() {
        VarHandle v = engine.newVariable("v");
        Recorder rec = listen();
        try (Bulk b = engine.bulk(3)) {
            for (int i = 0; i < 3; i++) {
                engine.op("m" + i).writes(v).run(ctx -> { });
            }
        }
        engine.waitForAll(BOUND);
        String bulk = "bulk[3]: m0..m2";
        assertEquals(List.of("started " + bulk, "member " + bulk + " #0 m0 DONE", "member " + bulk + " #1 m1 DONE",
                "member " + bulk + " #2 m2 DONE", "finished " + bulk), rec.texts());
        List<Event> events = rec.snapshot();
        long previous = events.get(0).nanos();
        for (Event e : events.subList(1, 4)) {
            assertTrue(e.nanos() >= previous && e.nanosEnd() >= e.nanos(), "member times in order, after started: " + events);
            previous = e.nanosEnd();
            assertEquals(events.get(0).thread(), e.thread(), "reported on the thread that runs the merged op");
        }
        assertTrue(events.get(4).nanos() >= previous, "finished after the last member: " + events);
    }

    @Test
    void aThrowingMemberIsFailedAndTheMembersAfterItAreSkipped() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        VarHandle c = engine.newVariable("c");
        Recorder rec = listen();
        try (Bulk bulk = engine.bulk(8)) {
            engine.op("first").writes(a).run(ctx -> { });
            engine.op("thrower").writes(b).run(ctx -> {
                throw new IllegalStateException("boom");
            });
            engine.op("independent").writes(c).run(ctx -> { });
            engine.op("reader").reads(a).writes(c).run(ctx -> { });
        }
        assertThrowsEngineException();
        String name = "bulk[4]: first..reader";
        assertEquals(List.of("started " + name, "member " + name + " #0 first DONE", "member " + name + " #1 thrower FAILED",
                "member " + name + " #2 independent SKIPPED", "member " + name + " #3 reader SKIPPED", "finished " + name),
                rec.texts());
        for (Event e : rec.snapshot().subList(3, 5)) {
            assertEquals(e.nanos(), e.nanosEnd(), "a skipped member has no run time: " + e);
        }
    }

    private void assertThrowsEngineException() {
        try {
            engine.waitForAll(BOUND);
        } catch (EngineException expected) {
            return; // the thrower's failure, reported once
        }
        throw new AssertionError("waitForAll did not report the member's failure");
    }

    @Test
    void aMemberThatInheritsAFailureIsSkippedAndTheOthersRun() {
        VarHandle failed = engine.newVariable("failed");
        VarHandle y = engine.newVariable("y");
        VarHandle z = engine.newVariable("z");
        engine.op("earlier").writes(failed).run(ctx -> {
            throw new IllegalStateException("earlier");
        });
        Recorder rec = listen();
        try (Bulk bulk = engine.bulk(8)) {
            engine.op("uses failed").reads(failed).writes(y).run(ctx -> { });
            engine.op("unrelated").writes(z).run(ctx -> { });
        }
        assertThrowsEngineException();
        String name = "bulk[2]: uses failed..unrelated";
        assertEquals(List.of("started " + name, "member " + name + " #0 uses failed SKIPPED",
                "member " + name + " #1 unrelated DONE", "finished " + name), rec.texts());
    }

    @Test
    void opsThatAreNotMergedReportNoMembers() {
        VarHandle v = engine.newVariable("v");
        Recorder rec = listen();
        engine.op("alone").writes(v).run(ctx -> { });
        try (Bulk b = engine.bulk(4)) {
            engine.op("single").writes(v).run(ctx -> { }); // a bulk flushed with one member pushes it alone
        }
        engine.waitForAll(BOUND);
        assertEquals(List.of("started alone", "finished alone", "started single", "finished single"), rec.texts());
    }

    @Test
    void aListenerThrowingFromMemberFinishedIsContainedAndDetached() {
        AtomicInteger thrown = new AtomicInteger();
        engine.addListener(new OpListener() {
            @Override
            public void memberFinished(OpInfo bulk, int index, String memberName, OpInfo.Outcome outcome,
                                       long startNanos, long endNanos) {
                thrown.incrementAndGet();
                throw new AssertionError("listener bug");
            }
        });
        Recorder rec = listen();
        VarHandle v = engine.newVariable("v");
        int members = 20;
        long[] ran = {0};
        try (Bulk b = engine.bulk(members)) {
            for (int i = 0; i < members; i++) {
                engine.op("m" + i).writes(v).run(ctx -> ran[0]++);
            }
        }
        engine.waitForAll(BOUND); // no member failed: the listener's throws are not the ops' failures
        assertEquals(members, ran[0], "every member ran although a listener threw");
        assertEquals(members, v.version());
        assertEquals(members, rec.texts().stream().filter(t -> t.startsWith("member ")).count(),
                "the other listener saw every member");
        assertTrue(thrown.get() > 0 && thrown.get() < members, "a listener that keeps throwing is detached; it threw "
                + thrown.get() + " times for " + members + " members");
    }
}
