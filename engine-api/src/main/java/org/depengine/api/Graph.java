package org.depengine.api;

/**
 * A recorded sequence of ops ({@link Capture#graph()}), pushed again as a whole by {@link #replay()}.
 * Thread-safe: any thread may replay it, also several at once; each replay is then ordered against
 * the others and against ordinary pushes exactly as its ops pushed one by one would be.
 */
public interface Graph {

    /**
     * Pushes every recorded op again, in the recorded order, from the calling thread, with its recorded
     * function, context, variables, property, priority and name: the same as pushing the ops one by one
     * now. The results, {@link VarHandle#version()} counts, the failure and skip rules, device routing
     * and asynchronous completion are those of the ops pushed one by one, and the ops of a replay wait
     * only for the ops they conflict with (those of earlier replays included), so consecutive replays
     * overlap wherever their variables allow. Listeners see each op under its recorded name, with the
     * argument {@code "replay"} (a {@link Long}: 1 for the first replay of this graph) added to its own.
     *
     * <p>The replay's ops are registered as one step: another thread's push is ordered before all of
     * them or after all of them, never between two.
     *
     * <p>The functions are called again at every replay: per-step data flows through what they read,
     * not through new closures. On an engine that runs ops on the pushing thread ({@code naive}) the
     * replay returns once its ops have run, as pushes do there. There, while no listener is set, a graph
     * whose ops are all synchronous and of one CPU context replays as one op that runs them in order; on
     * the other engines, only such a graph that is a chain (each op conflicts with the one before it)
     * does. The results, counts, failures and skips stay those above, but the graph holds each of its
     * variables from its first op to its last, so another thread's op on any of them waits for the whole
     * replay (diagnostics show that one op, named after the graph).
     *
     * @throws IllegalStateException before pushing anything, if the engine is closed, if a variable
     *     the graph uses or an operator it pushes was deleted (the message names it and the op), if
     *     called from inside one of this graph's own ops, or if the calling thread is recording a
     *     capture; if a variable is deleted concurrently with the replay, the ops pushed before the
     *     refused one stay pushed, and the exception names it, as a push would
     */
    void replay();

    /**
     * The number of ops recorded.
     *
     * @return the number of ops one replay pushes
     */
    int size();

    /**
     * How many replays have started so far.
     *
     * @return the number of {@link #replay()} calls that pushed their ops
     */
    long replays();
}
