/**
 * The KVStore API: {@link org.depengine.kvstore.KVStore} (push and pull as engine ops), its settings
 * ({@link org.depengine.kvstore.KVStoreSettings}), the server-side step
 * ({@link org.depengine.kvstore.Updater}) and its failure type
 * ({@link org.depengine.kvstore.KVStoreException}), and the membership changes an elastic store tells
 * ({@link org.depengine.kvstore.MembershipListener}, {@link org.depengine.kvstore.MembershipChange}). Open a store with
 * {@link org.depengine.kvstore.KVStore#open}.
 */
package org.depengine.kvstore;
