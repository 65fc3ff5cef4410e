package org.depengine.api;

/**
 * A variable: the unit of dependency tracking. A variable holds no data of its own; it stands for
 * whatever state the ops that list it read or write (an array, a buffer, a random generator).
 *
 * <p>Variables are created by {@link Engine#newVariable()} and belong to that engine; passing one to
 * another engine is an {@link IllegalArgumentException}. After
 * {@link Engine#deleteVariable(SyncFn, Context, VarHandle)} a variable can no longer be used.
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
public interface VarHandle {
    /**
     * The name given at creation, or a generated one ({@code "var#17"}); never null.
     *
     * @return the name given at creation, or a generated one ({@code "var#17"}); never null
     */
    String name();

    /**
     * The number of completed writes to this variable, starting at 0. Writes that were skipped because
     * an input carried a failure count too. The value is a snapshot: ops still running may raise it.
     *
     * @return the number of completed writes
     */
    long version();
}
