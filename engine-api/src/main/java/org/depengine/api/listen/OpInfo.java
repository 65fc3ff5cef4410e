package org.depengine.api.listen;

import java.util.List;
import java.util.Map;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Stream;

/**
 * A read-only view of one pushed op, given to {@link OpListener}s. The view is only valid during the
 * listener call: a listener must copy what it keeps (an engine may reuse the object for another op,
 * as a graph's replays reuse their ops' blocks).
 */
public interface OpInfo {
    /**
     * A number unique within the engine, increasing in push order.
     *
     * @return a number unique within the engine, increasing in push order
     */
    long id();

    /**
     * The op's name: the one given at push, else one generated from the id, {@code "op#" + id()}.
     *
     * @return the op's name (generated when none was given)
     */
    String name();

    /**
     * Whether the op was given a name at push. When it was not, {@link #name()} is {@code "op#" + id()},
     * so a listener that keeps names can keep the id and build the name only when it shows it, instead
     * of building a string per op.
     *
     * @return true if the op was pushed with a name; the default, for views that do not say, is true
     */
    default boolean named() {
        return true;
    }

    /**
     * The op's property.
     *
     * @return the op's property
     */
    FnProperty property();

    /**
     * The priority it was pushed with.
     *
     * @return the priority it was pushed with
     */
    int priority();

    /**
     * The device context it was pushed to.
     *
     * @return the device context it was pushed to
     */
    Context context();

    /**
     * The variables it reads, de-duplicated.
     *
     * @return the variables it reads, de-duplicated
     */
    List<VarHandle> reads();

    /**
     * The variables it writes, de-duplicated.
     *
     * @return the variables it writes, de-duplicated
     */
    List<VarHandle> writes();

    /**
     * The {@code profiling} flag of {@link org.depengine.api.Engine#push}; true for {@code pushSync/pushAsync}.
     *
     * @return the {@code profiling} flag
     */
    boolean profiling();

    /**
     * The arguments this run of the op was pushed with ({@link org.depengine.api.OpBuilder#arg(String, long)}),
     * in the order given: each value a {@link Long}, {@link Double}, {@link Boolean} or {@link String}.
     * Unmodifiable; empty (and allocated for no op) when none were given. The default is empty.
     *
     * @return the op's arguments, in the order given
     */
    default Map<String, Object> args() {
        return Map.of();
    }

    /**
     * The stream it runs on, once started; null before, and for ops run without a stream.
     *
     * @return the stream it runs on, once started; null before, and for ops run without a stream
     */
    Stream stream();

    /**
     * How it ended, once finished; null before.
     *
     * @return how it ended, once finished; null before
     */
    Outcome outcome();

    /**
     * Its failure (its own, or one it took over when skipped), once finished; null if none.
     *
     * @return its failure (its own, or one it took over when skipped), once finished; null if none
     */
    Throwable failure();

    /** How an op ended. */
    enum Outcome {
        /** Its function ran and completed. */
        DONE,
        /** Its function ran and failed. */
        FAILED,
        /** Its function did not run: an input carried a failure, or the engine was shutting down. */
        SKIPPED
    }
}
