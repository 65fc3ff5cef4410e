package org.depengine.core.tracker;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The op's code against its transition table ({@link OpTransition}), through the moves the model
 * checks made: engine-core's tests record every move of an op's state word and fence stage
 * ({@code -Ddepengine.test.opTransitions=true}, set for this module) and check each against the row it
 * was made by as it is made, so a move outside the table fails the model check (or test) that made it.
 * This class, run after the others, checks that none did and that every row was taken. The Lincheck
 * classes' stress runs (real threads) count every move; the model checker may roll back static state
 * between its runs, so its moves are checked but not all counted. Run on its own, it runs the stress
 * checks that take every row first.
 */
@Order(Integer.MAX_VALUE)
class OpTransitionTableTest {
    @Test
    void everyMoveTheModelChecksMadeIsInTheTableAndEveryRowIsTaken() {
        assertTrue(OpTransition.recording(), "the moves are not recorded: run with -Ddepengine.test.opTransitions=true "
                + "(engine-core's surefire configuration sets it)");
        if (!untaken().isEmpty()) {
            // Run alone (or in an order that left rows out): make the stress checks' moves here.
            new OpStateModelCheckTest().stress();
            new TrackerModelCheckTest().stressWithReleaseAtLaunch();
            new TrackerModelCheckTest().stressWithInlineRuns();
            new TrackerModelCheckTest().stressWithReplays();
        }
        assertNull(OpTransition.firstMismatch(), "a move that is no row of the table");
        List<OpTransition> untaken = untaken();
        assertTrue(untaken.isEmpty(), "rows of the table no model check took: " + untaken);
    }

    private static List<OpTransition> untaken() {
        List<OpTransition> rows = new ArrayList<>();
        for (OpTransition t : OpTransition.values()) {
            if (OpTransition.count(t) == 0) {
                rows.add(t);
            }
        }
        return rows;
    }

    @Test
    void eachRowRefusesAMoveOutsideIt() {
        int running = OpLife.RUNNING;
        int done = OpLife.DONE;
        int finished = OpLife.FINISHED;
        assertTrue(OpTransition.CLAIM.matches(running, done));
        assertTrue(!OpTransition.CLAIM.matches(done, done) && !OpTransition.CLAIM.matches(running, finished),
                "a claim moves RUNNING to DONE only");
        assertTrue(!OpTransition.FINISH_RUN.matches(running | OpLife.IN_FLIGHT, finished), "FINISH_RUN keeps the flags");
        assertTrue(OpTransition.IN_FLIGHT.matches(running, running | OpLife.IN_FLIGHT | OpLife.LAUNCHED));
        assertTrue(!OpTransition.IN_FLIGHT.matches(running, running), "IN_FLIGHT sets its flag");
        assertTrue(OpTransition.REUSE.matches(finished | OpLife.IN_FLIGHT, OpLife.PENDING));
        assertTrue(!OpTransition.REUSE.matches(done, OpLife.PENDING), "only a finished block is reused");
        assertTrue(OpTransition.FENCE_DONE.matches(FenceState.FENCE, FenceState.DONE)
                && !OpTransition.FENCE_DONE.matches(FenceState.NONE, FenceState.DONE), "a fence is done only once launched");
    }
}
