/**
 * The dependency tracker shared by every engine: variables with their per-variable FIFO
 * ({@link org.depengine.core.tracker.Var}), op blocks with their wait counters
 * ({@link org.depengine.core.tracker.OprBlock}), operator definitions
 * ({@link org.depengine.core.tracker.OpDef}) and failure records
 * ({@link org.depengine.core.tracker.Failure}). Nothing here knows about threads or devices; an
 * {@link org.depengine.core.tracker.OpHost} (the engine) is told when an op is ready and when it completed.
 */
package org.depengine.core.tracker;
