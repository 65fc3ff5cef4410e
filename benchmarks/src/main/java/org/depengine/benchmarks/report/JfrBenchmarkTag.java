package org.depengine.benchmarks.report;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Properties;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.JavaFlightRecorderProfiler;

/**
 * Labels each recording of JMH's JFR profiler with the benchmark and parameters it belongs to: writes
 * {@value #FILE} next to {@code profile.jfr}, so that {@link ProfileSummary} matches recordings to
 * JMH's results exactly instead of parsing JMH's escaped directory names. Runs in the forked JVM
 * after the last measurement iteration ({@code -prof jfr:postProcessor=...}, see run.sh).
 */
public final class JfrBenchmarkTag implements JavaFlightRecorderProfiler.PostProcessor {
    /** The label's file name. */
    static final String FILE = "benchmark.properties";
    /** Key of the benchmark's full name; each parameter is {@code PARAM + name}. */
    static final String BENCHMARK = "benchmark";
    static final String PARAM = "param.";

    /** JMH instantiates post-processors reflectively. */
    public JfrBenchmarkTag() {
    }

    @Override
    public List<File> postProcess(BenchmarkParams benchmark, File jfrFile) {
        Properties p = new Properties();
        p.setProperty(BENCHMARK, benchmark.getBenchmark());
        for (String key : benchmark.getParamsKeys()) {
            p.setProperty(PARAM + key, benchmark.getParam(key));
        }
        File label = new File(jfrFile.getParentFile(), FILE);
        try (OutputStream out = Files.newOutputStream(label.toPath())) {
            p.store(out, "the JMH benchmark recorded in profile.jfr beside this file");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.of(label);
    }
}
