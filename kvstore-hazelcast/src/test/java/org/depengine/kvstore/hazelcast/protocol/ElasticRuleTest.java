package org.depengine.kvstore.hazelcast.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule.Action;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule.Decision;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule.Report;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule.Step;
import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Test;

/** {@link ElasticRule}'s decisions in the cases its Javadoc names, and its refusals. */
class ElasticRuleTest {
    private static final long R1 = Rounds.of(0, 1);
    private static final long R2 = Rounds.of(0, 2);
    private static final long R3 = Rounds.of(0, 3);
    private static final long R4 = Rounds.of(0, 4);

    @Test
    void theAgreedRoundIsTheHighestAppliedAndOneBehindIsForwardedToFromAKeptSum() {
        Decision d = ElasticRule.decide("w", List.of(
                new Report("a", R2, R1, true, R3),   // applied 2, its push of 3 open
                new Report("b", R1, 0, true, R2)));  // one behind: its push of 2 is in 2's sum
        assertEquals(R2, d.agreed());
        assertEquals(new Step("a", Action.NONE, null, true), d.of("a"));
        assertEquals(new Step("b", Action.FORWARD, "a", false), d.of("b"));
        assertNull(d.of("c"));
    }

    @Test
    void aSurvivorFurtherBehindOrWithoutTheInitTakesTheStateAsOfTheAgreedRound() {
        Decision d = ElasticRule.decide("w", List.of(
                new Report("a", R4, R3, true, R4),
                new Report("b", R2, R1, true, R3),                                    // ended the period after its push of 3
                new Report("c", ElasticRule.NOT_STARTED, ElasticRule.NOT_STARTED, false, 0)));
        assertEquals(R4, d.agreed());
        assertEquals(new Step("b", Action.STATE, "a", false), d.of("b"));
        assertEquals(new Step("c", Action.STATE, "a", false), d.of("c"));
    }

    @Test
    void aForwardNeedsAKeptSumAndOneRoundOfHistory() {
        // "a" reached round 2 by a state transfer: it keeps no sum, so "b", one behind, takes the state.
        Decision d = ElasticRule.decide("w", List.of(
                new Report("a", R2, ElasticRule.NOT_STARTED, false, R2),
                new Report("b", R1, 0, true, R2)));
        assertEquals(Action.STATE, d.of("b").action());
        assertEquals("a", d.of("b").from());
    }

    @Test
    void sendersAreSpreadOverTheSurvivorsThatCanSend() {
        Decision d = ElasticRule.decide("w", List.of(
                new Report("a", R2, R1, true, R3),
                new Report("b", R2, R1, true, R3),
                new Report("c", R1, 0, true, R2),
                new Report("d", R1, 0, true, R2)));
        assertEquals("a", d.of("c").from());
        assertEquals("b", d.of("d").from());
    }

    @Test
    void openPushesAfterTheAgreedRoundAreSentAgainAndNoneBefore() {
        Decision d = ElasticRule.decide("w", List.of(
                new Report("a", R1, 0, true, R2),      // 2 never completed anywhere
                new Report("b", R1, 0, true, R2),
                new Report("c", R1, 0, true, R1)));    // has not pushed 2 yet: it will, under the new view
        assertEquals(R1, d.agreed());
        assertTrue(d.of("a").resend() && d.of("b").resend());
        assertEquals(new Step("c", Action.NONE, null, false), d.of("c"));
    }

    @Test
    void withNoInitAnywhereNothingIsAgreedAndOpenPushesAreSentAgain() {
        Decision d = ElasticRule.decide("w", List.of(
                new Report("a", ElasticRule.NOT_STARTED, ElasticRule.NOT_STARTED, false, R1),
                new Report("b", ElasticRule.NOT_STARTED, ElasticRule.NOT_STARTED, false, 0)));
        assertEquals(ElasticRule.NOT_STARTED, d.agreed());
        assertEquals(new Step("a", Action.NONE, null, true), d.of("a"));
        assertEquals(new Step("b", Action.NONE, null, false), d.of("b"));
    }

    @Test
    void contradictoryReportsAreRefusedWithTheReason() {
        assertEquals("no survivor reported key 'w'",
                assertThrows(IllegalArgumentException.class, () -> ElasticRule.decide("w", List.of())).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ElasticRule.decide("w", List.of(
                new Report("a", R1, 0, true, R1), new Report("a", R1, 0, true, R1)))).getMessage().contains("twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ElasticRule.decide("w", List.of(
                new Report("a", R3, R2, true, R3), new Report("b", R3, R1, true, R3)))).getMessage()
                .contains("after different rounds"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Report("a", R1, R2, true, R1)).getMessage()
                .contains("as applied before"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Report("a", R1, ElasticRule.NOT_STARTED, true, R1))
                .getMessage().contains("kept sum"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Report("a", -2, ElasticRule.NOT_STARTED, false, 0))
                .getMessage().contains("negative"));
    }
}
