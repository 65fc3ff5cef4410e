package org.depengine.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.depengine.kvstore.MembershipChange.Arrival;
import org.depengine.kvstore.MembershipChange.Departure;
import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class MembershipChangeTest {
    private static final Departure GONE = new Departure(1, "10.0.0.2:5701", "killed: its connection closed",
            Instant.parse("2026-01-02T12:03:04.120Z"));
    private static final List<Departure> ONE_LEFT = List.of(GONE);

    /** Rank 0 of 3 stays rank 0 of 2. */
    private static MembershipChange lossOfRank1(Map<String, Long> rounds) {
        return new MembershipChange(1, 0, 0, 2, ONE_LEFT, List.of(), rounds);
    }

    @Test
    void aValidChangeKeepsImmutableCopiesAndTheRoundsInKeyOrder() {
        List<Departure> left = new ArrayList<>(ONE_LEFT);
        Map<String, Long> rounds = new HashMap<>(Map.of("w2", Rounds.of(0, 5), "w1", Rounds.of(1, 1)));
        MembershipChange c = new MembershipChange(1, 2, 1, 2, left, List.of(), rounds);
        left.clear();
        rounds.clear();
        assertEquals(ONE_LEFT, c.left(), "the change keeps its own copy of the list");
        assertEquals(List.of("w1", "w2"), List.copyOf(c.firstRoundOf().keySet()), "key order");
        assertEquals(Rounds.of(1, 1), c.firstRoundOf().get("w1"));
        assertThrows(UnsupportedOperationException.class, () -> c.left().add(GONE));
        assertThrows(UnsupportedOperationException.class, () -> c.joined().add(new Arrival(1, "m", 0)));
        assertThrows(UnsupportedOperationException.class, () -> c.firstRoundOf().put("x", 1L));
        assertEquals(c, new MembershipChange(1, 2, 1, 2, ONE_LEFT, List.of(),
                Map.of("w1", Rounds.of(1, 1), "w2", Rounds.of(0, 5))), "a record: equal components, equal changes");
    }

    @Test
    void aJoinerHasPreviousRankMinusOneAndAnArrivalAtItsRank() {
        MembershipChange c = new MembershipChange(4, -1, 2, 3, List.of(), List.of(new Arrival(2, "joiner", 7)), Map.of());
        assertEquals(-1, c.previousRank());
        assertEquals(7, c.joined().get(0).fromPeriod());
        refused(IllegalArgumentException.class, () -> new MembershipChange(4, -1, 1, 3, List.of(),
                List.of(new Arrival(2, "joiner", 7)), Map.of()), "previousRank -1 and joined", "its new rank 1");
        refused(IllegalArgumentException.class, () -> new MembershipChange(4, 0, 2, 3, List.of(),
                List.of(new Arrival(2, "joiner", 7)), Map.of()), "previousRank 0 and joined");
    }

    @Test
    void numbersOutOfRangeAreRefusedNamingWhatIsWrong() {
        refused(IllegalArgumentException.class, () -> new MembershipChange(0, 0, 0, 2, ONE_LEFT, List.of(), Map.of()),
                "epoch is at least 1", ": 0");
        refused(IllegalArgumentException.class, () -> new MembershipChange(1, 0, 0, 0, ONE_LEFT, List.of(), Map.of()),
                "numWorkers=0");
        refused(IllegalArgumentException.class, () -> new MembershipChange(1, 0, -1, 2, ONE_LEFT, List.of(), Map.of()),
                "rank -1 is not in [0, 2)");
        refused(IllegalArgumentException.class, () -> new MembershipChange(1, 0, 2, 2, ONE_LEFT, List.of(), Map.of()),
                "rank 2 is not in [0, 2)");
        refused(IllegalArgumentException.class, () -> new MembershipChange(1, -2, 0, 2, ONE_LEFT, List.of(), Map.of()),
                "previousRank -2");
        refused(IllegalArgumentException.class, () -> new MembershipChange(1, 0, 0, 2, List.of(), List.of(), Map.of()),
                "no departure and no arrival");
    }

    @Test
    void ranksTwiceOrBeyondTheViewAreRefused() {
        refused(IllegalArgumentException.class, () -> new MembershipChange(1, 0, 0, 1, List.of(GONE, GONE), List.of(),
                Map.of()), "rank 1 is in left twice");
        refused(IllegalArgumentException.class, () -> new MembershipChange(1, 0, 0, 3, List.of(),
                List.of(new Arrival(1, "a", 0), new Arrival(1, "b", 0)), Map.of()), "rank 1 is in joined twice");
        refused(IllegalArgumentException.class, () -> new MembershipChange(1, 0, 0, 2, List.of(),
                List.of(new Arrival(2, "a", 0)), Map.of()), "joined[0] has rank 2, not below numWorkers=2");
    }

    @Test
    void nullsAreRefusedNamingWhere() {
        refused(NullPointerException.class, () -> new MembershipChange(1, 0, 0, 2, null, List.of(), Map.of()), "left");
        refused(NullPointerException.class, () -> new MembershipChange(1, 0, 0, 2, ONE_LEFT, null, Map.of()), "joined");
        refused(NullPointerException.class, () -> lossOfRank1(null), "firstRoundOf");
        List<Departure> withNull = new ArrayList<>(ONE_LEFT);
        withNull.add(null);
        refused(NullPointerException.class, () -> new MembershipChange(1, 0, 0, 1, withNull, List.of(), Map.of()),
                "left[1] is null");
        Map<String, Long> nullKey = new HashMap<>();
        nullKey.put(null, 1L);
        refused(NullPointerException.class, () -> lossOfRank1(nullKey), "firstRoundOf has a null key");
        Map<String, Long> nullRound = new HashMap<>();
        nullRound.put("w", null);
        refused(NullPointerException.class, () -> lossOfRank1(nullRound), "round of key 'w' is null");
    }

    @Test
    void aRoundThatNoPushHasIsRefused() {
        refused(IllegalArgumentException.class, () -> lossOfRank1(Map.of("w", Rounds.of(3, 0))), "key 'w'",
                "not a push's round");
        refused(IllegalArgumentException.class, () -> lossOfRank1(Map.of("w", -1L)), "key 'w' is -1");
    }

    @Test
    void departuresAndArrivalsCheckTheirComponents() {
        refused(IllegalArgumentException.class, () -> new Departure(-1, "m", "why", Instant.EPOCH), "rank is at least 0");
        refused(NullPointerException.class, () -> new Departure(0, null, "why", Instant.EPOCH), "member");
        refused(NullPointerException.class, () -> new Departure(0, "m", null, Instant.EPOCH), "why");
        refused(NullPointerException.class, () -> new Departure(0, "m", "why", null), "detectedAt");
        refused(IllegalArgumentException.class, () -> new Arrival(-1, "m", 0), "rank is at least 0");
        refused(IllegalArgumentException.class, () -> new Arrival(0, "m", -1), "first period is at least 0");
        refused(NullPointerException.class, () -> new Arrival(0, null, 0), "member");
    }

    private static void refused(Class<? extends RuntimeException> type, Executable call, String... parts) {
        RuntimeException e = assertThrows(type, call);
        for (String p : parts) {
            assertTrue(String.valueOf(e.getMessage()).contains(p), "message should contain '" + p + "': " + e.getMessage());
        }
    }
}
