package org.depengine.docscheck;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a Markdown file, each with the HTML comment on the line right above its fence
 * (its directive): {@code <!-- given: ... -->} for a Java snippet's context, {@code <!-- source: PATH -->}
 * for a block that must equal a file.
 */
public final class MarkdownBlocks {
    private static final Pattern FENCE = Pattern.compile("^```(.*)$");
    private static final Pattern DIRECTIVE = Pattern.compile("^<!--\\s*(given|source):(.*?)-->\\s*$");

    /**
     * One fenced block.
     *
     * @param file the Markdown file
     * @param line the fence's line number (1-based)
     * @param info the fence's info string, e.g. {@code java} or {@code java fragment}; empty if none
     * @param code the block's text, each line ending in a newline
     * @param directive {@code given} or {@code source}, or null when the line above the fence is no directive
     * @param argument the directive's text, stripped; null without a directive
     */
    public record Block(Path file, int line, String info, String code, String directive, String argument) {
        /** The first word of the info string: the language ({@code java}, {@code sh}, ...), or empty. */
        public String language() {
            String s = info.strip();
            int space = s.indexOf(' ');
            return space < 0 ? s : s.substring(0, space);
        }

        /** The words of the info string after the language. */
        public String marker() {
            String s = info.strip();
            int space = s.indexOf(' ');
            return space < 0 ? "" : s.substring(space + 1).strip();
        }

        /** Where the block is, as a message names it: {@code docs/guide/x.md:12}. */
        public String where() {
            return file + ":" + line;
        }
    }

    private MarkdownBlocks() {
    }

    /**
     * Reads the blocks of the Markdown file {@code path}.
     *
     * @param path the file
     * @param shownAs the file as blocks and messages name it (e.g. relative to the repository)
     * @throws IllegalArgumentException if a fence is never closed
     */
    public static List<Block> read(Path path, Path shownAs) throws IOException {
        Path file = shownAs;
        List<String> lines = Files.readAllLines(path);
        List<Block> blocks = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                i++;
                continue;
            }
            int start = i;
            StringBuilder code = new StringBuilder();
            i++;
            while (i < lines.size() && !lines.get(i).equals("```")) {
                code.append(lines.get(i)).append('\n');
                i++;
            }
            if (i == lines.size()) {
                throw new IllegalArgumentException(file + ":" + (start + 1) + ": a code fence that is never closed");
            }
            String directive = null;
            String argument = null;
            if (start > 0) {
                Matcher d = DIRECTIVE.matcher(lines.get(start - 1));
                if (d.matches()) {
                    directive = d.group(1);
                    argument = d.group(2).strip();
                }
            }
            blocks.add(new Block(file, start + 1, open.group(1), code.toString(), directive, argument));
            i++;
        }
        return blocks;
    }
}
