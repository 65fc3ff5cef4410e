/** The {@code local} KVStore; use it through {@code KVStore.open(engine, "local")}. */
package org.depengine.kvstore.local;
