package org.depengine.kvstore.hazelcast.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ViewTest {
    private static final View ABCD = View.first(List.of("a", "b", "c", "d"));

    @Test
    void survivorsKeepTheirOrderAndJoinersFollowInTheOrderAdmitted() {
        View shrunk = ABCD.without(Set.of("b"), "b was killed");
        assertEquals(1, shrunk.epoch());
        assertEquals(List.of("a", "c", "d"), shrunk.members());
        assertEquals("b was killed", shrunk.cause());
        assertArrayEquals(new int[] {0, -1, 1, 2}, ABCD.ranksIn(shrunk));

        View grown = shrunk.with(List.of("e", "f"), "e and f joined");
        assertEquals(2, grown.epoch());
        assertEquals(List.of("a", "c", "d", "e", "f"), grown.members());
        assertEquals(4, grown.rankOf("f"));
        assertEquals(-1, grown.rankOf("b"));
        assertArrayEquals(new int[] {0, 1, 2}, shrunk.ranksIn(grown));
    }

    @Test
    void changesThatNameNobodyOrTheWrongWorkersAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ABCD.without(Set.of(), "nobody"));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> ABCD.without(Set.of("x"), "x"));
        assertTrue(unknown.getMessage().contains("x is not a member of view 0"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ABCD.without(Set.of("a", "b", "c", "d"), "all"));
        assertThrows(IllegalArgumentException.class, () -> ABCD.with(List.of(), "nobody"));
        IllegalArgumentException again = assertThrows(IllegalArgumentException.class, () -> ABCD.with(List.of("c"), "c"));
        assertTrue(again.getMessage().contains("c is already rank 2 of view 0"), again.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ABCD.with(List.of("e", "e"), "e twice"));
        assertThrows(IllegalArgumentException.class, () -> new View(0, List.of(), "empty"));
        assertThrows(IllegalArgumentException.class, () -> new View(-1, List.of("a"), "negative"));
        assertThrows(NullPointerException.class, () -> new View(0, java.util.Arrays.asList("a", null), "null id"));
    }

    @Test
    void aStrictMajorityOrHalfWithRankZeroHoldsTheView() {
        assertTrue(ABCD.heldBy(Set.of("a", "b", "c")));
        assertTrue(ABCD.heldBy(Set.of("a", "d")));
        assertFalse(ABCD.heldBy(Set.of("b", "c")));
        assertFalse(ABCD.heldBy(Set.of("d", "x", "y"))); // ids that are not members do not count
        View two = View.first(List.of("a", "b"));
        assertTrue(two.heldBy(Set.of("a")), "two embedded workers survive the loss of rank 1");
        assertFalse(two.heldBy(Set.of("b")), "... and not of rank 0");
        assertTrue(View.first(List.of("a")).heldBy(Set.of("a")));
    }

    @Test
    void noCutLetsBothSidesGoOnAndTheWholeViewAlwaysHoldsIt() {
        for (int n = 1; n <= 9; n++) {
            List<String> members = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                members.add("m" + i);
            }
            View v = View.first(members);
            assertTrue(v.heldBy(members), "the whole of a view of " + n);
            for (int mask = 0; mask < 1 << n; mask++) {
                List<String> one = new ArrayList<>();
                List<String> other = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    ((mask & 1 << i) != 0 ? one : other).add(members.get(i));
                }
                assertFalse(v.heldBy(one) && v.heldBy(other), "both sides of " + one + " | " + other + " hold view " + members);
                // The larger side holds it; of two equal halves, the one with rank 0.
                boolean expected = one.size() * 2 == n ? one.contains("m0") : one.size() * 2 > n;
                assertEquals(expected, v.heldBy(one), one + " of " + members);
            }
        }
    }
}
