/**
 * The generator of {@code RESULTS.md} from stored JMH JSON results, and the machine description
 * recorded next to them.
 */
package org.depengine.benchmarks.report;
