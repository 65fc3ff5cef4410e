package org.depengine.kvstore.hazelcast.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Test;

/** {@link AppliedRounds}: rounds applied in order, and what a view change's recovery does to them. */
class AppliedRoundsTest {
    private static final long R1 = Rounds.of(0, 1);
    private static final long R2 = Rounds.of(0, 2);
    private static final long R3 = Rounds.of(0, 3);

    @Test
    void roundsApplyInOrderOnceWholeAndTheRoundBeforeIsKept() {
        AppliedRounds a = new AppliedRounds(2);
        a.start(0, 0);
        assertEquals(-1, a.previous());
        assertFalse(a.arrived(R2));
        assertTrue(a.arrived(R2));
        assertEquals(-1, a.next(-1), "round 2 waits for round 1");
        a.arrived(R1);
        a.arrived(R1);
        assertEquals(R1, a.next(-1));
        a.applied(R1);
        assertEquals(0, a.previous());
        assertEquals(R2, a.next(-1));
        a.applied(R2);
        assertEquals(R1, a.previous());
        assertFalse(a.arrived(R1), "a round applied is never applied again");
    }

    @Test
    void aViewChangeKeepsWhatWasAppliedAndDropsTheOldViewsParts() {
        AppliedRounds a = new AppliedRounds(1);
        a.start(0, 0);
        a.arrived(R1);
        a.applied(a.next(-1));
        a.arrived(R2); // whole under one chunk, but of the old view
        AppliedRounds b = a.changeView(3);
        assertEquals(R1, b.applied());
        assertEquals(0, b.previous());
        assertEquals(-1, b.next(-1));
        b.arrived(R2);
        b.arrived(R2);
        assertEquals(-1, b.next(-1), "three parts now make a sum");
        b.arrived(R2);
        assertEquals(R2, b.next(-1));
    }

    @Test
    void recoveryMovesTheCopyForwardByAForwardedSumOrByAState() {
        AppliedRounds a = new AppliedRounds(1);
        a.start(0, 0);
        a.arrived(R1);
        a.applied(a.next(-1));
        long firstOfNext = Rounds.of(1, 1);
        a.forwarded(firstOfNext);
        assertEquals(firstOfNext, a.next(-1), "a forwarded round applies next, though period 0 is not closed here");
        a.applied(firstOfNext);
        assertEquals(R1, a.previous());
        a.arrived(Rounds.of(1, 3));
        a.recoveredTo(Rounds.of(1, 2));
        assertEquals(-1, a.previous(), "a state transfer leaves no round before");
        assertEquals(Rounds.of(1, 3), a.next(-1), "round 3's sum, arrived before, applies next");
        assertThrows(IllegalStateException.class, () -> a.recoveredTo(Rounds.of(1, 2)));
        assertThrows(IllegalStateException.class, () -> a.forwarded(R3));
        assertThrows(IllegalStateException.class, () -> new AppliedRounds(1).forwarded(R1));

        AppliedRounds fresh = new AppliedRounds(1);
        fresh.recoveredTo(Rounds.of(2, 4)); // a worker that never had the init
        assertTrue(fresh.started());
        assertEquals(Rounds.of(2, 4), fresh.applied());
        assertEquals(2, fresh.startPeriod());
    }
}
