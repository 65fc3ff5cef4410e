/**
 * The dependency tracker shared by every engine: variables with their per-variable FIFO
 * ({@link org.depengine.core.tracker.Var}), op blocks with their wait counters
 * ({@link org.depengine.core.tracker.OpBlock}), operator definitions
 * ({@link org.depengine.core.tracker.OpDef}) and failure records
 * ({@link org.depengine.core.tracker.Failure}). An {@link org.depengine.core.tracker.OpHost} (the
 * engine) is told when an op is ready and when it completed; which thread runs an op is the engine's
 * business, not the tracker's. It does know one thing about devices: an op that released its variables
 * at launch stays a fence until its device work is done, and the ops released behind it carry that
 * fence ({@link org.depengine.core.tracker.Fencing}) to the engine's dispatcher, which decides how they
 * wait for it ({@code org.depengine.core.DeviceOrdering}).
 *
 * <p>An op block carries three things it does not use itself, typed by small interfaces of this package
 * so that it needs nothing from the core: where the engine sends it when ready
 * ({@link org.depengine.core.tracker.OpRoute}: a worker group, the naive engine's hand-off), the
 * pending-op count it entered ({@link org.depengine.core.tracker.OpAccount}) and its device
 * ({@link org.depengine.core.tracker.OpDevice}).
 */
package org.depengine.core.tracker;
