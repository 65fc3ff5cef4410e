package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.membership.ViewLog;
import org.depengine.kvstore.hazelcast.membership.ViewTexts;
import org.depengine.kvstore.hazelcast.protocol.View;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ViewLog} on a real cluster of three embedded members (started once for the class; each test has
 * a job, and so a {@code shared} map, of its own): one winner per epoch among racing proposers, the quorum
 * rule, and every member's listeners getting every epoch once, in order, off Hazelcast's threads.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ViewLogTest {
    private static final int N = 3;
    private static final String POOL = "view-deliveries-";
    private static final long WAIT_S = 20;
    private final TestCluster cluster = new TestCluster(N);
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final List<ViewLog> logs = new ArrayList<>();
    private final AtomicInteger threads = new AtomicInteger();
    /** Several threads: the log, not the executor, must keep its deliveries one at a time. */
    private final ExecutorService deliveries = Executors.newFixedThreadPool(4,
            r -> new Thread(r, POOL + threads.incrementAndGet()));
    /** The proposers' threads. */
    private final ExecutorService proposers = Executors.newFixedThreadPool(N);
    private String job;

    @BeforeAll
    void startMembers() {
        members.addAll(cluster.startMembers(N, Map.of()));
    }

    @AfterAll
    void stopMembers() {
        deliveries.shutdownNow();
        proposers.shutdownNow();
        members.forEach(HazelcastInstance::shutdown);
    }

    @BeforeEach
    void newJob() {
        job = "views-" + UUID.randomUUID();
    }

    @AfterEach
    void closeLogs() {
        logs.forEach(ViewLog::close);
        logs.clear();
    }

    @Test
    void workersStartingTogetherAllGetTheFirstOnesViewZero() {
        List<ViewLog> l = IntStream.range(0, N).mapToObj(this::log).toList();
        // Each proposes itself as rank 0: whichever is first, all end up with its view.
        List<Supplier<View>> starts = new ArrayList<>();
        for (int m = 0; m < N; m++) {
            List<String> order = new ArrayList<>(allIds());
            order.add(0, order.remove(m));
            View mine = View.first(order);
            ViewLog x = l.get(m);
            starts.add(() -> x.start(mine));
        }
        List<View> got = together(starts);
        assertEquals(1, Set.copyOf(got).size(), got.toString());
        for (int m = 0; m < N; m++) {
            assertEquals(got.get(0), l.get(m).current());
        }
        // A worker that starts later gets the same view 0.
        assertEquals(got.get(0), log(1).start(View.first(List.of("someone else"))));
        assertThrows(IllegalArgumentException.class, () -> l.get(0).start(got.get(0).with(List.of("x"), "not a start")));
    }

    @Test
    void ofTwoRacingProposersExactlyOneWinsAndEveryMemberSeesItsEpochOnce() {
        List<ViewLog> l = IntStream.range(0, N).mapToObj(this::log).toList();
        AtomicInteger inside = new AtomicInteger();
        List<Recorder> rec = new ArrayList<>();
        View from = null;
        for (ViewLog x : l) {
            from = x.start(View.first(allIds()));
            Recorder r = new Recorder(inside);
            rec.add(r);
            x.listen(r);
        }
        List<View> installed = new ArrayList<>();
        for (int race = 0; race < 6; race++) {
            View base = from;
            View byZero = base.with(List.of("joiner-a" + race), "a joined; proposed on member 0");
            View byOne = base.with(List.of("joiner-b" + race), "b joined; proposed on member 1");
            List<View> results = together(List.of(() -> l.get(0).propose(base, byZero, base.members()),
                    () -> l.get(1).propose(base, byOne, base.members())));
            View won = results.get(0);
            assertEquals(won, results.get(1), "both proposers return the installed view");
            assertTrue(won.equals(byZero) || won.equals(byOne), won.toString());
            for (int m = 0; m < N; m++) {
                assertEquals(won, l.get(m).current());
            }
            assertEquals(won, l.get(2).propose(base, base.with(List.of("late"), "late"), base.members()),
                    "a third, late proposer adopts it too");
            installed.add(won);
            from = won;
        }
        for (Recorder r : rec) {
            assertEquals(installed, r.awaitEpoch(installed.size()), "each epoch once, in order");
            r.assertWellDelivered();
        }
    }

    @Test
    void aSideWithoutAMajorityIsRefusedAndInstallsNothing() {
        ViewLog l = log(0);
        String me = id(0);
        View five = l.start(View.first(List.of(me, "b", "c", "d", "e")));
        KVStoreException e = assertThrows(KVStoreException.class,
                () -> l.propose(five, five.without(List.of("c", "d", "e"), "c, d, e left"), List.of(me, "b")));
        assertTrue(e.getMessage().contains("cut off from the job: this side has 2 of 5 workers of view 0 (ranks [0, 1]); "
                + "it lost contact with ranks [2 (member c), 3 (member d), 4 (member e)]"), e.getMessage());
        assertEquals(0, e.rank());
        assertEquals(five, l.current());
        assertFalse(shared(1).containsKey("view.1"), "nothing is written");

        // Exactly half: refused without the view's rank 0, accepted with it.
        newJob();
        ViewLog half = log(1);
        View four = half.start(View.first(List.of("a", id(1), "c", "d")));
        KVStoreException tie = assertThrows(KVStoreException.class,
                () -> half.propose(four, four.without(List.of("a", "d"), "a, d left"), List.of(id(1), "c")));
        assertTrue(tie.getMessage().contains("this side has 2 of 4 workers") && tie.getMessage().contains("0 (member a)"),
                tie.getMessage());
        assertEquals(1, tie.rank());
        assertEquals(four, half.current());
        View next = four.without(List.of("c", "d"), "c, d left");
        assertEquals(next, half.propose(four, next, List.of("a", id(1))));
        assertEquals(next, half.current());

        // Client mode: the cluster is the arbiter, no majority is needed (the 2 of 5 above, now installed).
        newJob();
        ViewLog arbitrated = log(0);
        View five2 = arbitrated.start(View.first(List.of(me, "b", "c", "d", "e")));
        View two = five2.without(List.of("c", "d", "e"), "c, d, e left");
        assertEquals(two, arbitrated.propose(five2, two, List.of(me, "b"), false));
        assertEquals(two, arbitrated.current());
        assertThrows(KVStoreException.class, () -> arbitrated.requireQuorum(two, List.of("b")), "1 of 2 without rank 0");
        arbitrated.requireQuorum(two, List.of(me));

        // A proposal that does not follow its expected view is a caller's error.
        assertThrows(IllegalArgumentException.class, () -> half.propose(next, four, List.of("a", id(1))));
    }

    @Test
    void everyMemberSeesEveryEpochOnceInOrderAndLateListenersFromTheirStartingPoint() {
        int epochs = 20;
        List<ViewLog> l = IntStream.range(0, N).mapToObj(this::log).toList();
        List<AtomicInteger> inside = IntStream.range(0, N).mapToObj(m -> new AtomicInteger()).toList(); // per log
        List<Recorder> rec = new ArrayList<>();
        for (int m = 0; m < N; m++) {
            l.get(m).start(View.first(allIds()));
            Recorder r = new Recorder(inside.get(m));
            rec.add(r);
            l.get(m).listen(r);
        }
        // Every member proposes from the view it reads, as fast as it can, until epoch 20 is installed.
        List<Supplier<View>> loops = new ArrayList<>();
        for (int m = 0; m < N; m++) {
            ViewLog x = l.get(m);
            int who = m;
            loops.add(() -> installUpTo(x, epochs, who));
        }
        together(loops);
        List<View> history = historyUpTo(epochs);
        for (Recorder r : rec) {
            assertEquals(history, r.awaitEpoch(epochs));
            r.assertWellDelivered();
        }

        // Late listeners. listen(l): every epoch after view 0, the installed ones at once, from the history;
        // listen(e, l): every epoch after e only. A log that never started (a worker that missed it all) too.
        ViewLog fresh = log(1);
        Recorder fromStart = new Recorder(inside.get(2));
        Recorder afterNow = new Recorder(inside.get(2));
        Recorder freshFromStart = new Recorder(new AtomicInteger());
        l.get(2).listen(fromStart);
        l.get(2).listen(epochs, afterNow);
        fresh.listen(freshFromStart);
        assertEquals(history, fromStart.awaitEpoch(epochs));
        assertEquals(history, freshFromStart.awaitEpoch(epochs));
        installUpTo(l.get(0), epochs + 5, 0);
        List<View> more = historyUpTo(epochs + 5);
        assertEquals(more, fromStart.awaitEpoch(epochs + 5));
        assertEquals(more.subList(epochs, epochs + 5), afterNow.awaitEpoch(epochs + 5));
        assertEquals(more, freshFromStart.awaitEpoch(epochs + 5));
        for (Recorder r : rec) {
            assertEquals(more, r.awaitEpoch(epochs + 5));
            r.assertWellDelivered();
        }
        fromStart.assertWellDelivered();
        afterNow.assertWellDelivered();
        freshFromStart.assertWellDelivered();
        assertThrows(IllegalArgumentException.class, () -> fresh.listen(-1, v -> { }));
    }

    @Test
    void aStaleProposalLosesAndReturnsTheInstalledView() {
        ViewLog zero = log(0);
        ViewLog one = log(1);
        View v0 = zero.start(View.first(allIds()));
        one.start(View.first(allIds()));
        View v1 = one.propose(v0, v0.without(List.of(id(2)), "member 2 left"), List.of(id(0), id(1)));
        View v2 = one.propose(v1, v1.with(List.of("j"), "j joined"), v1.members());
        assertEquals(2, v2.epoch());

        View stale = v0.without(List.of(id(1)), "member 1 left, as member 0 saw it late");
        assertEquals(v2, zero.propose(v0, stale, List.of(id(0), id(2))));
        assertEquals(v2, zero.current());
        assertEquals(v1, history(1), "the history of an installed epoch never changes");

        // An expected view of the installed epoch that is not the installed view loses as well, writing nothing.
        View forged = new View(2, List.of(id(0), id(1), "k"), "k joined");
        assertEquals(v2, zero.propose(forged, forged.with(List.of("x"), "x"), forged.members()));
        assertFalse(shared(0).containsKey("view.3"));
        assertEquals(v2, zero.current());
    }

    @Test
    void aClosedLogDeliversNothingMore() {
        ViewLog closed = log(0);
        ViewLog open = log(1);
        View v0 = closed.start(View.first(allIds()));
        Recorder gone = new Recorder(new AtomicInteger());
        Recorder kept = new Recorder(new AtomicInteger());
        closed.listen(gone);
        open.listen(kept);
        View v1 = open.propose(v0, v0.with(List.of("j1"), "j1"), v0.members());
        assertEquals(List.of(v1), gone.awaitEpoch(1));
        closed.close();
        closed.close(); // idempotent
        View v2 = open.propose(v1, v1.with(List.of("j2"), "j2"), v1.members());
        View v3 = open.propose(v2, v2.with(List.of("j3"), "j3"), v2.members());
        assertEquals(List.of(v1, v2, v3), kept.awaitEpoch(3));
        assertEquals(List.of(v1), gone.seen(), "nothing after close");
        assertThrows(IllegalStateException.class, () -> closed.listen(v -> { }));
    }

    /** Proposes from the view {@code x} reads, adding a joiner, until {@code last} is installed. */
    private static View installUpTo(ViewLog x, int last, int who) {
        View v = x.current();
        while (v.epoch() < last) {
            View base = v;
            v = x.propose(base, base.with(List.of("j" + (base.epoch() + 1)), "j" + (base.epoch() + 1)
                    + " joined; proposed on member " + who), base.members());
            assertTrue(v.epoch() > base.epoch(), v + " after " + base);
        }
        return v;
    }

    private List<View> historyUpTo(int last) {
        List<View> h = new ArrayList<>();
        for (int e = 1; e <= last; e++) {
            h.add(history(e));
        }
        return h;
    }

    /** Epoch {@code e}'s history entry, read through another member than the tests' proposers use most. */
    private View history(int e) {
        String text = shared(2).get("view." + e);
        assertTrue(text != null, "view." + e + " is missing");
        View v = ViewTexts.decode(text);
        assertEquals(e, v.epoch());
        return v;
    }

    private IMap<String, String> shared(int member) {
        return members.get(member).getMap(ClusterNode.MAP_PREFIX + job + ClusterNode.SHARED_SUFFIX);
    }

    private String id(int member) {
        return members.get(member).getLocalEndpoint().getUuid().toString();
    }

    private List<String> allIds() {
        return IntStream.range(0, N).mapToObj(this::id).toList();
    }

    /** A log of this test's job on member {@code m}, closed after the test. */
    private ViewLog log(int m) {
        ViewLog l = new ViewLog(shared(m), id(m), deliveries);
        logs.add(l);
        return l;
    }

    /** Runs the calls on threads of their own, released together once all are ready; their results in order. */
    private List<View> together(List<Supplier<View>> calls) {
        CountDownLatch ready = new CountDownLatch(calls.size());
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<View>> fs = new ArrayList<>();
        for (Supplier<View> s : calls) {
            fs.add(CompletableFuture.supplyAsync(() -> {
                ready.countDown();
                try {
                    if (!go.await(WAIT_S, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return s.get();
            }, proposers));
        }
        try {
            assertTrue(ready.await(WAIT_S, TimeUnit.SECONDS), "the threads did not start");
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        go.countDown();
        return fs.stream().map(CompletableFuture::join).toList();
    }

    /**
     * A listener that keeps what it is given, and notes any delivery made while another of the same log
     * (sharing {@code inside}) runs, or on a thread other than the log's executor's.
     */
    private static final class Recorder implements Consumer<View> {
        private final AtomicInteger inside;
        private final List<View> seen = new ArrayList<>();
        private final List<String> problems = new CopyOnWriteArrayList<>();

        Recorder(AtomicInteger inside) {
            this.inside = inside;
        }

        @Override
        public void accept(View v) {
            if (inside.incrementAndGet() != 1) {
                problems.add("view " + v.epoch() + " delivered while another delivery ran");
            }
            String thread = Thread.currentThread().getName();
            if (!thread.startsWith(POOL)) {
                problems.add("view " + v.epoch() + " delivered on " + thread);
            }
            synchronized (this) {
                seen.add(v);
                notifyAll();
            }
            inside.decrementAndGet();
        }

        synchronized List<View> seen() {
            return List.copyOf(seen);
        }

        /** What it was given, once that reaches epoch {@code e} (bounded). */
        synchronized List<View> awaitEpoch(int e) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
            while (seen.isEmpty() || seen.get(seen.size() - 1).epoch() < e) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    fail("epoch " + e + " was not delivered within " + WAIT_S + " s; delivered: " + seen);
                }
                try {
                    wait(left);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                    fail("interrupted");
                }
            }
            return List.copyOf(seen);
        }

        void assertWellDelivered() {
            assertEquals(List.of(), problems);
        }
    }
}
