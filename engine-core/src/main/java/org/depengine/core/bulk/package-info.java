/**
 * Bulk execution ({@link org.depengine.api.Engine#bulk(int)}): a thread's consecutive synchronous ops
 * held in a {@link org.depengine.core.bulk.BulkBuffer} and pushed as one merged op whose
 * {@link org.depengine.core.bulk.MergedBody} runs the members in push order, applying the skip and
 * failure rules member by member. {@link org.depengine.core.bulk.Bulks} is the engine's registry of open
 * bulks and decides, at each push and wait, what must be pushed first.
 */
package org.depengine.core.bulk;
