/** The distributed KVStores; {@code cluster} joins and talks to the cluster, {@code state} runs on the keys' owners. */
package org.depengine.kvstore.hazelcast;
