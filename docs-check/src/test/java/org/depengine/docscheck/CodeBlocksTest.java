package org.depengine.docscheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java block of the front page, the guide and the profiler's README compiles (javac, {@code --release 17},
 * against every module of the build), so a renamed method or a changed signature fails the build instead of
 * leaving a wrong example. The rules for a block (the guide's README says them to its writers):
 * <ul>
 *   <li>{@code ```java} with a {@code package}, {@code import} or top-level type: a compilation unit, compiled as is;</li>
 *   <li>{@code ```java} otherwise: statements, compiled as the body of a method that may throw, in a class that
 *   imports the API's packages; the line {@code <!-- given: MEMBERS -->} right above the fence declares what the
 *   statements use (fields and methods of that class, e.g. {@code Engine engine; VarHandle x;});</li>
 *   <li>{@code ```java fragment}: deliberately not compilable, not checked (listed when the test runs);</li>
 *   <li>any block, Java or not, with {@code <!-- source: PATH -->} right above it must equal that file of the
 *   repository, byte for byte (the file itself is compiled by its own build).</li>
 * </ul>
 */
class CodeBlocksTest {
    private static final Path ROOT = SettingsReferenceTest.ROOT;
    private static final Pattern UNIT = Pattern.compile(
            "^(package |import |module |(public |final |abstract |sealed )*(class|interface|record|enum) )", Pattern.MULTILINE);
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public (final |abstract |sealed )*(class|interface|record|enum) (\\w+)", Pattern.MULTILINE);
    private static final Pattern DIAGNOSTIC = Pattern.compile("^(.*?)([A-Za-z0-9_]+)\\.java:(\\d+): (.*)$");
    private static final String IMPORTS = String.join("\n",
            "import java.nio.file.*;",
            "import java.time.*;",
            "import java.util.List;",
            "import java.util.Map;",
            "import java.util.concurrent.*;",
            "import org.depengine.api.*;",
            "import org.depengine.api.device.*;",
            "import org.depengine.api.device.primitive.*;",
            "import org.depengine.api.listen.*;",
            "import org.depengine.api.spi.*;",
            "import org.depengine.api.settings.*;",
            "import org.depengine.kvstore.*;",
            "import org.depengine.profiler.*;",
            "import org.depengine.micrometer.*;",
            "import io.micrometer.core.instrument.MeterRegistry;",
            "import io.micrometer.core.instrument.Tags;",
            "import io.micrometer.core.instrument.simple.SimpleMeterRegistry;",
            "");

    /** The Markdown files whose Java blocks are checked. */
    static List<Path> documents() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("profiler/README.md")));
        try (Stream<Path> guide = Files.list(ROOT.resolve("docs/guide"))) {
            guide.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    private record Source(MarkdownBlocks.Block block, String className, String text, int codeLine) {
    }

    @Test
    void everyJavaBlockCompilesAndEverySourceBlockIsItsFile(@TempDir Path tmp) throws IOException {
        List<Source> snippets = new ArrayList<>();
        List<Source> units = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> fragments = new ArrayList<>();
        int java = 0;
        for (Path doc : documents()) {
            List<MarkdownBlocks.Block> blocks = MarkdownBlocks.read(doc, ROOT.relativize(doc));
            for (int i = 0; i < blocks.size(); i++) {
                MarkdownBlocks.Block b = blocks.get(i);
                if ("source".equals(b.directive())) {
                    Path file = ROOT.resolve(b.argument());
                    if (!Files.isRegularFile(file)) {
                        problems.add(b.where() + ": its source line names " + b.argument() + ", which does not exist");
                    } else if (!Files.readString(file).equals(b.code())) {
                        problems.add(b.where() + ": the block differs from " + b.argument() + "; copy the file into it");
                    }
                    continue;
                }
                if (!b.language().equals("java")) {
                    continue;
                }
                java++;
                if (b.marker().equals("fragment")) {
                    fragments.add(b.where());
                    continue;
                }
                if (!b.marker().isEmpty()) {
                    problems.add(b.where() + ": unknown marker '" + b.marker() + "' after java (only 'fragment')");
                    continue;
                }
                String name = "Block_" + doc.getFileName().toString().replaceAll("\\W", "_") + "_" + b.line();
                if (UNIT.matcher(b.code()).find()) {
                    if (b.directive() != null) {
                        problems.add(b.where() + ": a whole compilation unit takes no given line");
                    }
                    Matcher pub = PUBLIC_TYPE.matcher(b.code());
                    units.add(new Source(b, pub.find() ? pub.group(3) : name, b.code(), 1));
                } else {
                    String given = "given".equals(b.directive()) ? b.argument() : "";
                    String text = "package docsnippets;\n" + IMPORTS + "@SuppressWarnings(\"all\")\nclass " + name + " {\n"
                            + given + "\nvoid snippet() throws Exception {\n" + b.code() + "}\n}\n";
                    int codeLine = (int) text.substring(0, text.indexOf(b.code())).chars().filter(c -> c == '\n').count() + 1;
                    snippets.add(new Source(b, name, text, codeLine));
                }
            }
        }
        assertTrue(java >= 10, "found only " + java + " Java blocks: is the guide there?");
        // The snippets compile together (one javac run); each unit alone, in its own folder (they may share names).
        Path snippetDir = tmp.resolve("snippets");
        for (Source s : snippets) {
            Files.createDirectories(snippetDir.resolve("docsnippets"));
            Files.writeString(snippetDir.resolve("docsnippets").resolve(s.className + ".java"), s.text);
        }
        if (!snippets.isEmpty()) {
            problems.addAll(compile(snippetDir, snippets, tmp.resolve("out-snippets")));
        }
        for (int i = 0; i < units.size(); i++) {
            Source u = units.get(i);
            Path dir = tmp.resolve("unit" + i);
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(u.className + ".java"), u.text);
            problems.addAll(compile(dir, List.of(u), tmp.resolve("out-unit" + i)));
        }
        System.out.println("docs-check: " + java + " Java blocks; " + snippets.size() + " snippets and " + units.size()
                + " compilation units compiled; fragments (not compiled): " + fragments);
        assertEquals(List.of(), problems, "code blocks of the guide that do not compile or do not match their file "
                + "(see CodeBlocksTest's comment for the rules)");
    }

    /** Compiles the sources under {@code dir}; each javac error, as the block's Markdown file and line. */
    private static List<String> compile(Path dir, List<Source> sources, Path out) throws IOException {
        List<String> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.filter(p -> p.toString().endsWith(".java")).forEach(p -> files.add(p.toString()));
        }
        List<String> args = new ArrayList<>(List.of("--release", "17", "-proc:none", "-nowarn", "-encoding", "UTF-8",
                "-cp", classPath(), "-d", out.toString()));
        args.addAll(files);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow(() -> new AssertionError("the tests need a JDK (javac)"));
        int rc;
        try (PrintStream p = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            rc = javac.run(p, p, args.toArray(String[]::new));
        }
        List<String> problems = new ArrayList<>();
        if (rc == 0) {
            return problems;
        }
        for (String line : err.toString(StandardCharsets.UTF_8).split("\n")) {
            Matcher m = DIAGNOSTIC.matcher(line);
            if (!m.matches()) {
                continue;
            }
            for (Source s : sources) {
                if (s.className.equals(m.group(2))) {
                    int mdLine = s.block.line() + Integer.parseInt(m.group(3)) - s.codeLine + 1;
                    problems.add(s.block.file() + ":" + mdLine + ": " + m.group(4));
                }
            }
        }
        if (problems.isEmpty()) {
            problems.add("javac failed:\n" + err.toString(StandardCharsets.UTF_8));
        }
        return problems;
    }

    /** The test class path Maven resolved (dependency:build-classpath, see this module's pom). */
    private static String classPath() throws IOException {
        return Files.readString(Path.of("target/docs-check.classpath")).strip();
    }
}
