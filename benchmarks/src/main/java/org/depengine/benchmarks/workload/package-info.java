/**
 * The op lists every contender runs ({@link org.depengine.benchmarks.workload.Workloads}), their
 * dependency graph for the baselines, the ops' bodies and effects, and the serial oracle.
 */
package org.depengine.benchmarks.workload;
