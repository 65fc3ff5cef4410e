/**
 * The dependency tracker shared by every engine: variables with their per-variable FIFO
 * ({@link org.depengine.core.tracker.Var}), registration as one step with respect to other pushes
 * ({@link org.depengine.core.tracker.Registration}), operator definitions
 * ({@link org.depengine.core.tracker.OpDef}), failure records ({@link org.depengine.core.tracker.Failure})
 * and the skip rule ({@link org.depengine.core.tracker.SkipRule}), and the op, in parts
 * ({@link org.depengine.core.tracker.OpBlock}: its push, its readiness latch, its completion core, with
 * the one transition table {@link org.depengine.core.tracker.OpTransition}; a fence part for release
 * at launch; a replay slot owned by a recorded graph).
 *
 * <p>An {@link org.depengine.core.tracker.OpHost} (the engine) is told when an op is ready and when it
 * completed; which thread runs an op is the engine's business, not the tracker's. It does know one thing
 * about devices: an op that released its variables at launch stays a fence until its device work is
 * done, and the ops released behind it carry that fence ({@link org.depengine.core.tracker.FenceState})
 * to the engine's dispatcher, which decides how they wait for it ({@code core.device.DeviceOrdering}).
 *
 * <p>An op block carries three things it does not use itself, typed by small interfaces of this package
 * so that it needs nothing from the core: where the engine sends it when ready
 * ({@link org.depengine.core.tracker.OpRoute}: a worker group, the naive engine's hand-off), the
 * pending-op count it entered ({@link org.depengine.core.tracker.OpAccount}) and its device
 * ({@link org.depengine.core.tracker.OpDevice}).
 */
package org.depengine.core.tracker;
