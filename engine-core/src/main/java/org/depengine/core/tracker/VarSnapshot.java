package org.depengine.core.tracker;

import java.util.List;

/**
 * What a variable holds back at one moment, for diagnostics.
 *
 * @param var the variable
 * @param queue the pending write (first, if any) and the ops queued behind it, in push order
 * @param runningReaders the number of released reads not yet completed, or -1 while the first op of
 *     {@code queue} is a released (running) write
 * @param deviceWriter a write released at launch whose device work is not done yet, or null
 */
public record VarSnapshot(Var var, List<OpBlock> queue, int runningReaders, OpBlock deviceWriter) {
}
