/**
 * The contenders: the engines and the baselines (serial loop, CompletableFuture graph, ForkJoinPool
 * with pending counters, Dexecutor), behind one interface.
 */
package org.depengine.benchmarks.contender;
