package org.depengine.docscheck;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The string literals of Java sources, unescaped: what the error table's quoted messages are checked
 * against. Text blocks and character literals are skipped; comments are skipped.
 */
public final class StringLiterals {
    private StringLiterals() {
    }

    /** The literals of every {@code .java} file under each of {@code roots} (missing roots are skipped). */
    public static List<String> under(List<Path> roots) throws IOException {
        List<String> out = new ArrayList<>();
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    out.addAll(of(Files.readString(f)));
                }
            }
        }
        return out;
    }

    /** The literals of one source text. */
    public static List<String> of(String src) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
                i = lineEnd(src, i);
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
                int end = src.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '\'') {
                i = skipQuoted(src, i, '\'', null);
            } else if (c == '"' && src.startsWith("\"\"\"", i)) {
                int end = src.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
            } else if (c == '"') {
                StringBuilder lit = new StringBuilder();
                i = skipQuoted(src, i, '"', lit);
                out.add(lit.toString());
            } else {
                i++;
            }
        }
        return out;
    }

    private static int lineEnd(String s, int i) {
        int end = s.indexOf('\n', i);
        return end < 0 ? s.length() : end;
    }

    /** Skips a quoted literal starting at {@code i}; appends its unescaped text to {@code into} if not null. */
    private static int skipQuoted(String s, int i, char quote, StringBuilder into) {
        int j = i + 1;
        while (j < s.length() && s.charAt(j) != quote && s.charAt(j) != '\n') {
            char c = s.charAt(j);
            if (c == '\\' && j + 1 < s.length()) {
                char e = s.charAt(j + 1);
                if (into != null) {
                    into.append(switch (e) {
                        case 'n' -> '\n';
                        case 't' -> '\t';
                        default -> e; // \" \\ \' and the rest: the character itself is what a message shows
                    });
                }
                j += 2;
            } else {
                if (into != null) {
                    into.append(c);
                }
                j++;
            }
        }
        return j + 1;
    }
}
