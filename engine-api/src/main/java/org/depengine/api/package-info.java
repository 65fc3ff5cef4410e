/**
 * The user-facing API of depengine: push closures with the variables they read and write, and the
 * engine runs them in dependency order. Start at {@link org.depengine.api.Engine}.
 *
 * <p>Ops pushed the same way every step (a training loop) can be recorded once with
 * {@link org.depengine.api.Engine#capture()} and pushed again as a whole with
 * {@link org.depengine.api.Graph#replay()}; a replay is, by contract, the recorded ops pushed again in
 * order from the replaying thread.
 */
package org.depengine.api;
