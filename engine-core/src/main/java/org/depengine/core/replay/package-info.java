/**
 * Capture and replay: a thread's pushes recorded ({@code CaptureSession}, {@code Captures}) into a
 * graph that replays itself ({@code RecordedGraph}), owning its plan ({@code ReplayPlan}, where the rule
 * for which accesses go through the variables' queues is written), its block pool ({@code BlockPool})
 * and its launch, and asking of the engine only what a push needs ({@link org.depengine.core.replay.ReplayHost}).
 */
package org.depengine.core.replay;
