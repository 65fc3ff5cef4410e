package org.depengine.kvstore;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;

/**
 * A key → array store whose {@link #push push} (send values, e.g. gradients) and {@link #pull pull}
 * (fetch the stored value, e.g. weights) are ops of the dependency engine, after MXNet's KVStore.
 *
 * <h2>Keys and values</h2>
 * Keys are strings (they read best in messages: {@code "fc1.weight"}); a key holds an array of
 * {@code float}s whose length is fixed by {@link #init}. A value is a {@link DeviceArray}: floats on a
 * device with the variable guarding them. Every array pushed to or pulled into a key must have the key's
 * length; the arrays may live on any devices that offer the
 * {@link org.depengine.api.device.primitive.Memcpy} primitive.
 *
 * <h2>The engine contract</h2>
 * {@code push} and {@code pull} never wait for data: they validate their arguments, push ops to the
 * engine and return.
 * <ul>
 *   <li>{@code push(key, values)} pushes ops that <em>read</em> the values' variables and write the key's
 *   own variables: the values are summed (in list order) on the host, then the sum is handed to the
 *   store, which applies the {@link Updater}: on the host ({@code local}), on every worker to the round's
 *   sum ({@code dist_sync}'s default), or where the key lives ({@code dist_async}, or {@code updateOn=server}). So the caller may overwrite
 *   a pushed array right after {@code push} returns, through an op that writes its variable: the engine
 *   runs that op after the push has read it.</li>
 *   <li>{@code pull(key, outs)} pushes ops that read the key's variables and <em>write</em> the outs'
 *   variables. So {@code engine.waitForVar(out.var())} after a {@code pull} returns once the pulled value
 *   is in {@code out}, and any op pushed later that reads {@code out.var()} sees it.</li>
 *   <li>Ordering comes from those variables, never from waits: on one store, the ops of the calls on one
 *   key run in call order (a pull sees every earlier push of this worker to that key: in {@code local}
 *   and {@code dist_async} at least those, in {@code dist_sync} the whole round of every worker). Calls
 *   on different keys are independent.</li>
 *   <li>Every call ({@code init}, {@code push}, {@code pull}, {@code pushPull}, {@code endOfData},
 *   {@code barrier}) takes its place in the key's order when it is called, and its ops take their round
 *   from that order when they run, whatever the timing. So with {@code local} and {@code dist_sync}, any
 *   sequence of calls that is valid without waits gives the values it gives with
 *   {@code engine().waitForAll()} after every call: MXNet's {@code push(k); pull(k); barrier()} with no
 *   wait pulls the round of that push. With {@code dist_async} a pull has no round to wait for: it gives
 *   the key as it is where it lives when the pull's op runs, which holds every earlier push of this worker
 *   and some prefix of each other worker's pushes, possibly pushes they made after a barrier this pull was
 *   called before (a barrier orders no other worker's pushes against this worker's pulls).</li>
 *   <li>In an {@link org.depengine.api.Engine#capture()}: {@code push}, {@code pull} and
 *   {@code pushPull} are recorded like any push, and each replay of the graph is those calls made again
 *   (with the rounds they would take then). A replayed push after {@link #endOfData()} fails when it
 *   runs (its pulls carry the failure), as it cannot be refused at a call. {@code init},
 *   {@code setUpdater}, {@code barrier}, {@code endOfData}, {@code checkpoint} and {@code close} are
 *   refused in a capture with an {@link IllegalStateException} naming the call.</li>
 *   <li>{@code priority} is passed to every op pushed for the call: higher runs first among ready ops
 *   of a priority pool (as MXNet, pass minus the layer index so that the first layer's weights come
 *   back first).</li>
 *   <li>Failures travel through variables like every op's: when an op producing a pushed value fails,
 *   the push's ops are skipped and the outs of later pulls of that key carry the failure, so
 *   {@code waitForVar} on them throws with the original cause; when the store itself fails (a remote
 *   call fails or times out), the failure is a {@link KVStoreException} naming the key and the rank.</li>
 * </ul>
 *
 * <h2>Errors at the call</h2>
 * Bad input is refused at the call, before any op is pushed: a null argument is a
 * {@link NullPointerException} naming it; an unknown key, a key initialised twice, an empty value list,
 * or an array whose length is not the key's is an {@link IllegalArgumentException} naming the key and
 * the lengths; a call after {@link #close()} (or a push after {@link #endOfData()} and before the next
 * {@link #barrier()}) is an {@link IllegalStateException}. A device without the copy primitive is an
 * {@link UnsupportedOperationException} naming it.
 *
 * <h2>Thread-safety</h2>
 * Every method may be called from any thread. Calls on one key from several threads are ordered as the
 * calls happen (as pushes to the engine are); call them from one thread when the order matters.
 * Never call {@link #barrier()} or {@link #close()} from inside an op.
 *
 * <h2>Implementations</h2>
 * Found with {@link java.util.ServiceLoader} through {@link org.depengine.kvstore.spi.KVStoreProvider}:
 * {@code local} (module {@code kvstore-local}: one process, values summed across its devices, the
 * updater run on the host), {@code dist_sync} and {@code dist_async} (module {@code kvstore-hazelcast}).
 */
public interface KVStore extends AutoCloseable {

    /** The prefix of the system properties {@link KVStoreSettings#fromSystemProperties()} reads. */
    String PROPERTY_PREFIX = "depengine.kvstore.";

    /**
     * Opens a store of the given type on {@code engine}.
     *
     * @param type {@code "local"}, {@code "dist_sync"}, {@code "dist_async"}, or another type a provider offers
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if no provider offers {@code type} (the message lists the types
     *     found), or several do (naming them), or the settings do not suit the type
     * @throws KVStoreException if the store cannot be set up (e.g. the cluster cannot be joined)
     */
    static KVStore open(Engine engine, String type, KVStoreSettings settings) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(settings, "settings");
        return KVStoreProviders.require(type).open(engine, type, settings);
    }

    /**
     * Opens a store of the given type with the settings of the {@code depengine.kvstore.*} system
     * properties ({@link KVStoreSettings#fromSystemProperties()}). Throws as
     * {@link #open(Engine, String, KVStoreSettings)}, and {@link IllegalArgumentException} for an invalid
     * property value.
     */
    static KVStore open(Engine engine, String type) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(type, "type");
        return open(engine, type, KVStoreSettings.fromSystemProperties());
    }

    /** The store types the providers found offer, in discovery order. */
    static List<String> types() {
        return KVStoreProviders.types();
    }

    /** This store's type, e.g. {@code "local"}. */
    String type();

    /** The engine this store pushes its ops to. */
    Engine engine();

    /**
     * This worker's rank, in {@code [0, numWorkers())}; 0 for {@code local}. Fixed for the store's life,
     * except in an elastic store, where it changes only when a membership change is delivered
     * ({@link #onMembershipChange}).
     */
    int rank();

    /**
     * The number of workers pushing to the store; 1 for {@code local}. Fixed for the store's life, except
     * in an elastic store, where it changes only when a membership change is delivered
     * ({@link #onMembershipChange}).
     */
    int numWorkers();

    /**
     * Registers {@code listener} to be told of each change of this job's membership that this worker
     * applies from now on: workers lost or admitted, with its new rank and number of workers
     * ({@link MembershipChange}). {@link MembershipListener} states when, where and how often it is called.
     *
     * <p>Only an elastic distributed store (kvstore-hazelcast's {@code elastic=true}) changes its membership,
     * and calls listeners: when a worker is lost, and when one joins. A store whose membership cannot change
     * never calls it: a {@code local} store, and a {@code dist_*} store that is not elastic, whose lost worker
     * fails the ops that need it instead. In an elastic store, {@link #rank()} and {@link #numWorkers()} change
     * only at such a change: they answer the view this worker has applied, and the listeners are called once the
     * new values are in place and before any round of the new view completes here. A round open when a
     * worker is lost completes with the workers that stay; {@link MembershipChange#firstRoundOf()} tells,
     * per key, from which round on the new view's workers are summed, and {@link MembershipChange#joined()}
     * from which period a joiner's pushes are.
     *
     * <p>Several listeners are called in their registration order; one listener registered twice is
     * called twice. Closing the store removes every registration.
     *
     * @param listener the listener, called on the store's event thread
     * @return its registration, whose {@link Registration#remove()} stops the calls
     * @throws NullPointerException if {@code listener} is null
     * @throws IllegalStateException if the store is closed
     */
    Registration onMembershipChange(MembershipListener listener);

    /** A listener's registration with {@link #onMembershipChange}. */
    interface Registration {
        /**
         * Unregisters the listener: once this returns, no later change reaches it (a change being
         * delivered meanwhile may still). Idempotent, and allowed from inside the listener and after the
         * store is closed.
         */
        void remove();
    }

    /**
     * Creates {@code key} with {@code value}'s length and sets its stored value to {@code value}, through
     * an op that reads {@code value.var()}. Every worker calls {@code init} for every key (with arrays
     * of the same length); the stored value is rank 0's, and a worker's later pulls see it (never an
     * older value), however the workers' calls interleave.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code key} is empty or already initialised on this store, or the
     *     value is empty or longer than {@link Integer#MAX_VALUE} / 4 floats
     * @throws IllegalStateException if the store is closed
     */
    void init(String key, DeviceArray value);

    /**
     * Pushes {@code values} (one per device, typically) to {@code key}: ops that read their variables,
     * sum them in list order on the host and hand the sum to the store, where the {@link Updater} turns
     * it into the key's new value ({@code updater.update(key, sum, stored)}; with no updater set the
     * stored value becomes the sum). Returns without waiting for data.
     *
     * @param priority passed to the pushed ops (higher first)
     * @throws NullPointerException if an argument or an element is null
     * @throws IllegalArgumentException if the key is unknown, {@code values} is empty, or a value's length
     *     is not the key's
     * @throws IllegalStateException if the store is closed, or this worker signalled {@link #endOfData()}
     *     since its last {@link #barrier()}
     */
    void push(String key, List<DeviceArray> values, int priority);

    /** {@link #push(String, List, int)} of one value. */
    default void push(String key, DeviceArray value, int priority) {
        Objects.requireNonNull(value, "value");
        push(key, List.of(value), priority);
    }

    /** {@link #push(String, List, int)} with priority 0. */
    default void push(String key, DeviceArray... values) {
        Objects.requireNonNull(values, "values");
        push(key, List.of(values), 0);
    }

    /**
     * Pulls the value of {@code key} into every array of {@code outs}: ops that read the key's variables
     * and write the outs' variables. Returns without waiting for data; wait with
     * {@code engine().waitForVar(out.var())}, or just push the ops that read the outs.
     *
     * @param priority passed to the pushed ops (higher first)
     * @throws NullPointerException if an argument or an element is null
     * @throws IllegalArgumentException if the key is unknown, {@code outs} is empty, or an out's length is
     *     not the key's
     * @throws IllegalStateException if the store is closed
     */
    void pull(String key, List<DeviceArray> outs, int priority);

    /** {@link #pull(String, List, int)} into one array. */
    default void pull(String key, DeviceArray out, int priority) {
        Objects.requireNonNull(out, "out");
        pull(key, List.of(out), priority);
    }

    /** {@link #pull(String, List, int)} with priority 0. */
    default void pull(String key, DeviceArray... outs) {
        Objects.requireNonNull(outs, "outs");
        pull(key, List.of(outs), 0);
    }

    /**
     * {@link #push} then {@link #pull} of one key: the outs receive the value that results from this
     * push (in {@code dist_sync}, from this round). {@code outs} may be {@code values} (in place).
     * Throws as {@code push} and {@code pull}.
     */
    void pushPull(String key, List<DeviceArray> values, List<DeviceArray> outs, int priority);

    /**
     * Sets the updater run on each push's sum ({@code set_optimizer} in MXNet): on the host ({@code local}),
     * on every worker to each round's sum ({@code dist_sync}'s default: so it must compute the same on every
     * worker, as the built-ins do), or where the key lives ({@code dist_async}, {@code dist_sync} with
     * {@code updateOn=server}: the store ships it to the members holding the keys, which is why updaters are
     * {@link java.io.Serializable}). Call it before the first push of any key (every worker with an equal updater).
     *
     * @throws NullPointerException if {@code updater} is null
     * @throws IllegalStateException if the store is closed, or a push has already been made
     * @throws IllegalArgumentException if the store cannot ship {@code updater} (a store that ships updaters
     *     takes only the built-in updaters and the classes registered with it: the message names the class and
     *     the setting that registers it)
     */
    void setUpdater(Updater updater);

    /**
     * Blocks until every worker has called {@code barrier()} as many times as this one (at once for
     * {@code local}). It is a rendezvous of workers, not a fence on the engine: it neither waits for nor
     * orders this worker's pushed ops, whose order comes from variables (pull after the barrier to see
     * values). The calls made before it belong to the period it ends and those made after it to the
     * next, whenever their ops run: with {@code dist_sync}, a pull called just before it (no wait) is of
     * this worker's last round, one called just after it sees every round of the ended period. With
     * {@code dist_async} a pull is of no round: called before the barrier, with no wait, it may already hold
     * pushes the other workers make after it (see the class comment). It also ends an
     * {@link #endOfData()} period: this worker may push again.
     *
     * @throws IllegalStateException if the store is closed
     * @throws KVStoreException if a worker is lost or the barrier times out (naming the ranks missing), or
     *     at once if a worker has closed its store before reaching this barrier (a barrier needs every
     *     worker, and one that closed will never come)
     */
    void barrier();

    /**
     * Signals that this worker has no more data to push until its next {@link #barrier()} (workers with
     * uneven batch counts): in {@code dist_sync}, rounds then complete without this worker's contribution
     * instead of waiting for it. Pulls stay allowed; pushes are refused until the next barrier.
     * Idempotent; a no-op for a single worker beyond refusing pushes.
     *
     * @throws IllegalStateException if the store is closed
     */
    void endOfData();

    /**
     * Writes a checkpoint of the job to {@code path} ({@link Checkpoint} describes the file): every key's
     * value, the updater's state for it and its update count, as of the end of the period the last
     * {@link #barrier()} ended, one round for every key and chunk. MXNet's {@code save_optimizer_states}
     * with the weights. Called on rank 0 only; returns once the file is written. A store opened with the
     * setting {@code resume=path} continues from it.
     *
     * <p>The caller's contract: every worker has called {@link #barrier()} after its last push of the
     * period (in {@code dist_async}, after waiting for its pushes' ops, e.g. {@code engine().waitForAll()}),
     * and no worker pushes again until a barrier called after this returns:
     * {@code barrier(); if (rank() == 0) checkpoint(path); barrier();}. Pulls are allowed meanwhile.
     *
     * @throws NullPointerException if {@code path} is null
     * @throws IllegalStateException if the store is closed, or this is not rank 0
     * @throws KVStoreException if a key's value cannot be read (naming the key), or the file cannot be written
     */
    void checkpoint(java.nio.file.Path path);

    /**
     * The number of {@link #barrier()} calls of this job so far: this store's, plus the period of the
     * checkpoint it resumed from. A training loop that calls one barrier per epoch resumes at this epoch.
     */
    int period();

    /** The keys initialised on this store, as a snapshot. */
    Set<String> keys();

    /**
     * The length of {@code key}'s array, in floats.
     *
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if the key is unknown
     */
    int length(String key);

    /**
     * This worker's store's statistics, live: thread-safe and cheap to read from any thread at any time
     * (a metrics scrape), never blocking a round; the counters are monotonic for the store's life and stay
     * readable after {@link #close()}.
     *
     * @return the statistics
     */
    KVStoreStats stats();

    /** Whether {@link #close()} was called. */
    boolean isClosed();

    /**
     * Closes the store: later calls throw {@link IllegalStateException}; the ops already pushed run to
     * the end (this call waits for them, so a failed op's failure stays on its variables for their
     * waiters), then the store's resources (variables, connections) are released. Idempotent.
     */
    @Override
    void close();
}
