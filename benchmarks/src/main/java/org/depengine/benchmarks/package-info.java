/**
 * The JMH benchmarks: one class per workload, each with an {@code engine} method (the engines as a
 * {@code @Param}), a {@code baseline} method (the baselines as a {@code @Param}) and, where it fits,
 * a {@code dexecutor} method. Run them with {@code benchmarks/run.sh}.
 */
package org.depengine.benchmarks;
