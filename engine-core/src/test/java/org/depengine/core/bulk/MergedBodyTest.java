package org.depengine.core.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpHost;
import org.depengine.core.tracker.IdleOpHost;
import org.depengine.core.tracker.Var;
import org.junit.jupiter.api.Test;

/**
 * {@link MergedBody} on its own, run with a merged op's {@link OpBlock} as the engine runs it: what it
 * reports per member to the op's listener, and that it costs nothing per member without one. (The
 * same rules through real engines: testkit's {@code BulkMembersConformance}.)
 */
class MergedBodyTest {
    private static final Object OWNER = new Object();
    private static final SyncFn NOTHING = ctx -> { };

    /** The merged op's host: nothing to do, the body is run directly. */
    private static final OpHost NO_HOST = new IdleOpHost();

    private static final BulkHost BULK_HOST = new BulkHost() {
        @Override
        public void submitMerged(OpDef def, Context ctx, int priority, Runnable registered) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void checkContext(Context ctx) {
        }

        @Override
        public Failure memberFailed(Throwable error, String memberName) {
            return new Failure(error, memberName);
        }
    };

    private record Member(OpInfo bulk, int index, String name, OpInfo.Outcome outcome, long start, long end) {
    }

    private static final class Members implements OpListener {
        final List<Member> seen = new ArrayList<>();

        @Override
        public void memberFinished(OpInfo bulk, int index, String memberName, OpInfo.Outcome outcome,
                                   long startNanos, long endNanos) {
            seen.add(new Member(bulk, index, memberName, outcome, startNanos, endNanos));
        }
    }

    private static OpDef member(String name, SyncFn fn, Var write) {
        return new OpDef(OWNER, fn, new Var[0], new Var[] {write}, FnProperty.NORMAL, name, OpDef.Kind.USER);
    }

    private static OpBlock mergedOp(MergedBody body, OpListener listener) {
        OpDef def = new OpDef(OWNER, body, new Var[0], new Var[0], FnProperty.NO_SKIP, "bulk", OpDef.Kind.USER);
        return new OpBlock(def, NO_HOST, Context.cpu(), 0, true, 42, listener, null, null);
    }

    @Test
    void eachMemberIsReportedOnceInPushOrderWithItsOutcome() throws Exception {
        Var a = new Var(OWNER, "a");
        Var b = new Var(OWNER, "b");
        Var c = new Var(OWNER, "c");
        OpDef[] members = {
            member("first", NOTHING, a),
            member("thrower", ctx -> {
                throw new IllegalStateException("boom");
            }, b),
            member(null, NOTHING, c),
        };
        Members listener = new Members();
        OpBlock op = mergedOp(new MergedBody(BULK_HOST, members, new Var[0], new int[0]), listener);
        long before = System.nanoTime();
        op.def().syncFn().run(op);
        long after = System.nanoTime();

        assertEquals(3, listener.seen.size(), "every member once, the skipped one included");
        assertEquals(List.of("first", "thrower", "unnamed op"), listener.seen.stream().map(Member::name).toList());
        assertEquals(List.of(OpInfo.Outcome.DONE, OpInfo.Outcome.FAILED, OpInfo.Outcome.SKIPPED),
                listener.seen.stream().map(Member::outcome).toList());
        long previousEnd = before;
        for (int i = 0; i < 3; i++) {
            Member m = listener.seen.get(i);
            assertSame(op, m.bulk(), "reported with the merged op");
            assertEquals(i, m.index());
            assertTrue(m.start() >= previousEnd && m.end() >= m.start() && m.end() <= after,
                    "members' times are in order and within the run: " + listener.seen);
            previousEnd = m.end();
        }
        Member skipped = listener.seen.get(2);
        assertEquals(skipped.start(), skipped.end(), "a skipped member is a zero-length slice");
    }

    @Test
    void aMemberSkippedForAnInheritedFailureIsReported() throws Exception {
        Var failed = new Var(OWNER, "failed");
        failed.carryFailure(new Failure(new RuntimeException("earlier"), "earlier"));
        Var x = new Var(OWNER, "x");
        boolean[] ran = new boolean[1];
        OpDef uses = new OpDef(OWNER, NOTHING, new Var[] {failed}, new Var[] {x}, FnProperty.NORMAL, "uses", OpDef.Kind.USER);
        OpDef[] members = {uses, member("after", ctx -> ran[0] = true, new Var(OWNER, "y"))};
        Members listener = new Members();
        OpBlock op = mergedOp(new MergedBody(BULK_HOST, members, new Var[0], new int[0]), listener);
        op.def().syncFn().run(op);
        assertEquals(List.of(OpInfo.Outcome.SKIPPED, OpInfo.Outcome.DONE), listener.seen.stream().map(Member::outcome).toList());
        assertTrue(ran[0]);
    }

    @Test
    void withoutAListenerNothingIsAllocatedPerMember() throws Exception {
        int n = 50_000;
        OpDef[] members = new OpDef[n];
        for (int i = 0; i < n; i++) {
            members[i] = member("m" + i, NOTHING, new Var(OWNER, "v" + i));
        }
        OpBlock op = mergedOp(new MergedBody(BULK_HOST, members, new Var[0], new int[0]), null);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        op.def().syncFn().run(op); // warm up (class loading, first calls)
        long before = threads.getThreadAllocatedBytes(tid);
        op.def().syncFn().run(op);
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        // One object per member would be at least 16 bytes each: 800 KB; the bound leaves room for the
        // measurement's own few allocations.
        assertTrue(allocated < 16 * 1024, "a merged run of " + n + " members allocated " + allocated + " bytes without a listener");
    }
}
