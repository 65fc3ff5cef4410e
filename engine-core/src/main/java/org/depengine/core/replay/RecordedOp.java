package org.depengine.core.replay;

import org.depengine.api.Context;
import org.depengine.core.tracker.OpDef;

/**
 * One op of a {@link RecordedGraph}: what its push fixed, validated when it was recorded.
 *
 * @param def its validated definition, pushed again at each replay
 * @param ctx its context
 * @param priority its priority
 * @param profiling whether a profiler in "flagged ops only" mode records it
 */
record RecordedOp(OpDef def, Context ctx, int priority, boolean profiling) {
}
