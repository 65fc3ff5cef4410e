package org.depengine.kvstore.hazelcast.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Test;

/** The round protocol's rules one by one, without any transport. */
class RoundStateTest {
    private static List<Long> rounds(List<RoundState.Completed<float[]>> done) {
        return done.stream().map(RoundState.Completed::round).toList();
    }

    @Test
    void aRoundCompletesWhenEveryRankHasGivenItsPartAndHandsThemInRankOrder() {
        RoundState<float[]> s = new RoundState<>(3, false);
        s.ready(0);
        float[] a = {1};
        float[] b = {2};
        float[] c = {3};
        assertEquals(List.of(), s.offer(2, 1, c));
        assertEquals(List.of(), s.offer(0, 1, a));
        List<RoundState.Completed<float[]>> done = s.offer(1, 1, b);
        assertEquals(List.of(1L), rounds(done));
        assertEquals(List.of(a, b, c), done.get(0).slots(), "rank order, whatever the arrival order");
        assertEquals(1, s.completed());
    }

    @Test
    void nothingCompletesBeforeTheInitLandsAndThenEveryWaitingRoundDoesInOrder() {
        RoundState<float[]> s = new RoundState<>(1, false);
        assertEquals(List.of(), s.offer(0, 1, new float[] {1}));
        assertEquals(List.of(), s.offer(0, 2, new float[] {2}));
        assertEquals(List.of(1L, 2L), rounds(s.ready(0)));
        assertEquals(List.of(), s.ready(0), "a second init changes nothing");
    }

    @Test
    void aRepeatedContributionReplacesItsSlotAndOneToACompletedRoundIsIgnored() {
        RoundState<float[]> s = new RoundState<>(2, false);
        s.ready(0);
        s.offer(0, 1, new float[] {1});
        float[] again = {5};
        s.offer(0, 1, again);
        List<RoundState.Completed<float[]>> done = s.offer(1, 1, new float[] {2});
        assertEquals(again, done.get(0).slots().get(0));
        assertEquals(List.of(), s.offer(0, 1, new float[] {9}), "round 1 is complete: a late retry is ignored");
        assertEquals(1, s.completed());
    }

    @Test
    void anEndedRankNoLongerHoldsItsPeriodsRoundsUpAndMayNotContributeToThem() {
        RoundState<float[]> s = new RoundState<>(2, false);
        s.ready(0);
        long r1 = Rounds.of(0, 1);
        s.offer(0, r1, new float[] {1});
        assertEquals(List.of(r1), rounds(s.endOfData(1, 0)));
        assertThrows(IllegalStateException.class, () -> s.offer(1, Rounds.of(0, 2), new float[] {1}));
        long next = Rounds.of(1, 1);
        assertEquals(List.of(), s.offer(0, next, new float[] {1}), "the next period needs rank 1 again");
        assertTrue(s.periodDone(-1));
    }

    @Test
    void aSkippedPartCountsAndAddsNothingARoundOfSkipsCompletesWithNoData() {
        RoundState<float[]> s = new RoundState<>(2, false);
        s.ready(0);
        s.skip(0, 1);
        List<RoundState.Completed<float[]>> done = s.skip(1, 1);
        assertEquals(List.of(1L), rounds(done));
        assertEquals(List.of(), done.get(0).slots());
    }

    @Test
    void aLostRankFailsTheRoundsItHasNotFilledAndReadsOfThemSaySo() {
        RoundState<float[]> s = new RoundState<>(2, false);
        s.ready(0);
        s.offer(1, 1, new float[] {1});
        s.offer(1, 2, new float[] {1});
        assertEquals(2, s.lost(1, "rank 1 left"));
        assertEquals(Answer.Status.NOT_READY, s.read(2, "k").status(), "round 2 can still complete");
        assertEquals(Answer.failed("rank 1 left"), s.read(3, "k"));
        assertThrows(IllegalStateException.class, () -> s.offer(0, 3, new float[] {1}));
        s.offer(0, 1, new float[] {1});
        assertEquals(List.of(2L), rounds(s.offer(0, 2, new float[] {1})), "rounds the lost rank filled complete");
    }

    /**
     * The init is rank 0's: rank 0 lost before it landed fails every read, the init's (round 0) and a later
     * period's first, in either mode, instead of leaving them to wait for the call timeout. Another rank
     * lost before the init leaves the init's read waiting for rank 0 (it can still land).
     */
    @Test
    void rankZeroLostBeforeTheInitLandedFailsEveryReadOfTheKeyTheInitsIncluded() {
        for (boolean async : new boolean[] {false, true}) {
            RoundState<float[]> s = new RoundState<>(2, async);
            assertEquals(-1, s.lost(RoundState.INIT_RANK, "rank 0 left"), "not even the init can complete");
            assertEquals(Answer.failed("rank 0 left"), s.read(0, "k"), "async=" + async);
            assertEquals(Answer.failed("rank 0 left"), s.read(Rounds.of(1, 0), "k"), "async=" + async);
            assertEquals(-1, s.lost(1, "rank 1 left"), "the first loss is kept");
        }
        RoundState<float[]> other = new RoundState<>(2, false);
        assertEquals(0, other.lost(1, "rank 1 left"));
        assertEquals(Answer.Status.NOT_READY, other.read(0, "k").status(), "rank 0's init can still land");
        other.ready(0);
        assertEquals(Answer.READY, other.read(0, "k"));
        assertEquals(Answer.failed("rank 1 left"), other.read(1, "k"));
    }

    @Test
    void asyncContributionsAreRoundsOfTheirOwnTakenOnceEach() {
        RoundState<float[]> s = new RoundState<>(2, true);
        s.ready(0);
        assertEquals(List.of(1L), rounds(s.offer(1, 1, new float[] {1})));
        assertEquals(List.of(2L), rounds(s.offer(0, 1, new float[] {1})));
        assertEquals(List.of(), s.offer(1, 1, new float[] {1}), "rank 1's round 1 again: a retry");
        assertEquals(Answer.READY, s.read(0, "k"));
    }

    @Test
    void aCopyRestoredFromItsPartsIsTheSameState() {
        RoundState<float[]> s = new RoundState<>(3, false);
        s.ready(0);
        s.offer(0, 1, new float[] {1});
        s.skip(2, 1);
        s.endOfData(1, 0);
        s.offer(0, Rounds.of(1, 1), new float[] {4}); // period 1 needs rank 1 again: stays pending
        s.skip(2, Rounds.of(1, 1));
        RoundState<float[]> c = new RoundState<>(3, false);
        int[] ended = {s.endedPeriod(0), s.endedPeriod(1), s.endedPeriod(2)};
        RoundState.Restorer<float[]> put = c.restore(s.isReady(), s.completed(), ended, new long[3], s.failure(),
                s.failedAfter());
        s.forEachPending(put::slot);
        assertEquals(s.completed(), c.completed());
        assertEquals(s.missingRanks(), c.missingRanks());
        List<RoundState.Completed<float[]>> a = s.offer(1, Rounds.of(1, 1), new float[] {2});
        List<RoundState.Completed<float[]>> b = c.offer(1, Rounds.of(1, 1), new float[] {2});
        assertEquals(rounds(a), rounds(b));
        assertEquals(a.get(0).slots().size(), b.get(0).slots().size());
        assertArrayEquals(a.get(0).slots().get(0), b.get(0).slots().get(0));
    }

    /**
     * An elastic job's drop ({@code docs/elastic-design.md}, section 9): the dropped rank's data already in a round
     * stays there, the rounds it has not filled complete without it, nothing of it is taken in after, and its last
     * round of data is what every chunk answers; a skipped push gives no data.
     */
    @Test
    void aDroppedRankKeepsWhatItGaveAndTheRoundsItDidNotFillCompleteWithoutIt() {
        RoundState<float[]> s = new RoundState<>(3, false);
        s.ready(0);
        float[] a = {1};
        float[] b = {2};
        float[] c = {4};
        s.offer(2, 1, c);
        s.offer(0, 1, a);
        assertEquals(List.of(1L), rounds(s.offer(1, 1, b)));
        s.offer(2, 2, c); // rank 2's round 2 is in; ranks 0 and 1 still to push it
        s.skip(2, 3);
        s.offer(0, 2, a);
        assertEquals(2, s.lastData(2), "a skipped push gives no data");
        assertEquals(List.of(), s.dropped(2), "round 2 still waits for rank 1");
        List<RoundState.Completed<float[]>> done = s.offer(1, 2, b);
        assertEquals(List.of(2L), rounds(done));
        assertEquals(List.of(a, b, c), done.get(0).slots(), "rank 2's data, given before the drop, stays in its round");
        s.offer(0, 3, a);
        assertEquals(List.of(3L), rounds(s.offer(1, 3, b)), "round 3 completes without rank 2 (its skip is no data)");
        s.offer(0, 4, a);
        assertEquals(List.of(4L), rounds(s.offer(1, 4, b)), "and every later round");
        assertThrows(IllegalStateException.class, () -> s.offer(2, 5, c), "nothing of a dropped rank is taken in after");
        assertEquals(2, s.lastData(2));
        assertEquals(List.of(), s.dropped(2), "a second drop changes nothing");
        s.endOfData(0, 0);
        s.endOfData(1, 0);
        assertEquals(Answer.READY, s.read(Rounds.of(1, 0), "k"), "rank 2 ended every period: the survivors' ends do");
    }
}
