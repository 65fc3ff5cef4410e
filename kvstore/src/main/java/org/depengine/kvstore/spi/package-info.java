/**
 * For KVStore implementations: the {@link org.depengine.kvstore.spi.KVStoreProvider} service found
 * with {@link java.util.ServiceLoader}, and {@link org.depengine.kvstore.spi.AbstractKVStore}, which
 * turns push and pull into engine ops and leaves an implementation three asynchronous calls per key
 * (publish the initial value, send a push's sum, fetch the value of a round).
 */
package org.depengine.kvstore.spi;
