/**
 * The distributed KVStores ({@link org.depengine.kvstore.hazelcast.HazelcastKVStoreProvider}) and their
 * settings ({@link org.depengine.kvstore.hazelcast.HazelcastSettings}). Inside: {@code protocol}, the rounds
 * as pure bookkeeping (no transport); {@code membership}, a worker's place in its job; {@code client}, the
 * rounds of keys kept in Hazelcast ({@code updateOn=server}, {@code dist_async}, barriers); {@code hz}, the
 * Hazelcast adapters (entry processors, serializers, event filters); {@code peer}, the workers' own data
 * transport of {@code updateOn=worker}.
 */
package org.depengine.kvstore.hazelcast;
