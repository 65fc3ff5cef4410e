/**
 * For KVStore implementations: the {@link org.depengine.kvstore.spi.KVStoreProvider} service found
 * with {@link java.util.ServiceLoader}, and {@link org.depengine.kvstore.spi.AbstractKVStore}, which
 * turns push and pull into engine ops and leaves an implementation three asynchronous calls per key
 * (publish the initial value, send a push's sum, fetch the value of a round).
 *
 * <h2>A key's host state</h2>
 * Each key ({@link org.depengine.kvstore.spi.Key}) has two host arrays of its length, each guarded by a variable of its own:
 * <ul>
 *   <li>{@link org.depengine.kvstore.spi.Key#merged()}, guarded by {@link org.depengine.kvstore.spi.Key#mergedVar()}: the sum of the last push's values;</li>
 *   <li>{@link org.depengine.kvstore.spi.Key#stored()}, guarded by {@link org.depengine.kvstore.spi.Key#storeVar()}: the key's value as this worker sees it,
 *   the source of every pull.</li>
 * </ul>
 *
 * <h2>Failures</h2>
 * A hook fails its op by calling {@code done.fail(cause)} or by throwing; the base class wraps the cause
 * in a {@link org.depengine.kvstore.KVStoreException} naming the key, this rank, the round and the step (unless it already is
 * one), so {@code waitForVar} on a later pull's out throws an {@code EngineException} whose cause names
 * them. A hook must never leave {@code done} uncalled: a remote call is bounded by
 * {@link org.depengine.kvstore.KVStoreSettings#timeoutMs()} and fails with a message naming what it waited for (e.g. the
 * missing ranks). A hook is called on an engine thread (or the pushing thread for an
 * {@link org.depengine.api.FnProperty#ASYNC} op ready at push time): it must start its call and return, never block.
 */
package org.depengine.kvstore.spi;
