/**
 * JMH benchmarks of the depengine engines against same-run baselines, and the generator of
 * {@code benchmarks/RESULTS.md}. Run with {@code benchmarks/run.sh}; see {@code benchmarks/README.md}.
 *
 * <p>JMH's annotation processor generates the benchmark harness into
 * {@code org.depengine.benchmarks.jmh_generated}, compiled into this module; JMH's runner
 * instantiates those classes and the states reflectively, hence the {@code opens} to
 * {@code jmh.core}. Nothing is exported: no other module builds on this one. The uber-jar
 * ({@code target/benchmarks.jar}) runs on the class path, as JMH expects.
 */
module org.depengine.benchmarks {
    requires org.depengine.api;
    requires org.depengine.profiler;
    requires org.depengine.kvstore;
    requires org.depengine.micrometer;
    requires micrometer.registry.prometheus;
    requires org.depengine.device.opencl;
    requires org.slf4j;
    requires jmh.core;
    requires dexecutor.core;
    requires com.fasterxml.jackson.databind; // reads the JMH result files, writes and reads the profile summaries
    requires jdk.jfr; // the profile summary reads JMH's JFR recordings

    opens org.depengine.benchmarks to jmh.core;
    opens org.depengine.benchmarks.jmh_generated to jmh.core;
    // Jackson binds the profile summary's records (report.ProfileRun) reflectively; JMH instantiates the
    // JFR post-processor (report.JfrBenchmarkTag) reflectively.
    opens org.depengine.benchmarks.report to com.fasterxml.jackson.databind, jmh.core;
}
