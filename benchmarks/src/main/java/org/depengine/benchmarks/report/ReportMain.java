package org.depengine.benchmarks.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes {@code RESULTS.md} from every {@code MODE-jdkN.json} in a results folder: a program,
 * {@code java -cp benchmarks.jar org.depengine.benchmarks.report.ReportMain RESULTS_DIR OUT.md}.
 * Sections: one per mode and JDK; each has the machine, the JDK, the targets (met / missed with the
 * figures) and a table per workload shape. A targets section also quotes the profile summary of its JDK
 * ({@code RESULTS_DIR/profiles/jdkN.json}, from {@code run.sh profile}) for every missed target.
 */
public final class ReportMain {
    private ReportMain() {
    }

    /**
     * Generates the report.
     *
     * @param args the results folder and the Markdown file to write
     * @throws IOException if a file cannot be read or written
     * @throws IllegalArgumentException for wrong arguments or a result file that is not JMH's JSON
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ReportMain RESULTS_DIR OUT.md");
        }
        Path dir = Path.of(args[0]);
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("results folder " + dir + " does not exist; run benchmarks/run.sh first");
        }
        Files.writeString(Path.of(args[1]), Report.render(readAll(dir), readProfiles(dir.resolve(ProfileSection.DIR)))
                + notes(dir.resolve(NOTES)), StandardCharsets.UTF_8);
    }

    /** The folder of hand-written sections, under the results folder. */
    static final String NOTES = "notes";

    /**
     * The hand-written sections ({@code NOTES/*.md}: measurements taken outside {@code run.sh}, each with
     * its own command and conditions), in file-name order, to follow the generated ones; empty if none.
     */
    static String notes(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return "";
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.md")) {
            ds.forEach(files::add);
        }
        files.sort(Comparator.naturalOrder());
        StringBuilder out = new StringBuilder();
        for (Path f : files) {
            out.append('\n').append(Files.readString(f, StandardCharsets.UTF_8).strip()).append('\n');
        }
        return out.toString();
    }

    /**
     * Every profile summary ({@code jdkN.json}, see {@link ProfileSummary}) in {@code dir}, by JDK; none
     * if the folder is missing (the report then says "no profile").
     *
     * @throws IllegalArgumentException if a summary is not one
     */
    static Map<Integer, ProfileRun> readProfiles(Path dir) throws IOException {
        Map<Integer, ProfileRun> runs = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return runs;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "jdk*.json")) {
            for (Path f : ds) {
                ProfileRun run;
                try {
                    run = PROFILES.readValue(f.toFile(), ProfileRun.class);
                } catch (JsonProcessingException e) {
                    throw new IllegalArgumentException(f + ": not a profile summary: " + e.getOriginalMessage(), e);
                }
                runs.put(run.jdk(), run);
            }
        }
        return runs;
    }

    private static final ObjectMapper PROFILES = new ObjectMapper();

    /** Every run stored in {@code dir}, in file-name order. */
    static List<RunData> readAll(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*-jdk*.json")) {
            ds.forEach(files::add);
        }
        files.sort(null);
        List<RunData> runs = new ArrayList<>();
        for (Path f : files) {
            runs.add(RunData.read(f));
        }
        return runs;
    }
}
