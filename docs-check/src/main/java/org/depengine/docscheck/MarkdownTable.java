package org.depengine.docscheck;

import java.util.ArrayList;
import java.util.List;

/** A Markdown pipe table's rows, cells split on unescaped pipes ({@code \|} stays in its cell, as a pipe). */
public final class MarkdownTable {
    private MarkdownTable() {
    }

    /**
     * The body rows of the first table whose header row starts with {@code firstHeader}, each as its cells.
     *
     * @param markdown the text
     * @param firstHeader the header's first cell, e.g. {@code "you did"}
     * @return the rows below the header and its separator
     * @throws IllegalArgumentException if there is no such table
     */
    public static List<List<String>> rows(String markdown, String firstHeader) {
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i + 1 < lines.length; i++) {
            List<String> header = cells(lines[i]);
            if (!header.isEmpty() && header.get(0).equals(firstHeader) && lines[i + 1].startsWith("|---")) {
                List<List<String>> rows = new ArrayList<>();
                for (int j = i + 2; j < lines.length && lines[j].startsWith("|"); j++) {
                    rows.add(cells(lines[j]));
                }
                return rows;
            }
        }
        throw new IllegalArgumentException("no table whose header starts with '" + firstHeader + "'");
    }

    /** The cells of one table line, stripped; empty for a line that is not a table row. */
    public static List<String> cells(String line) {
        List<String> out = new ArrayList<>();
        if (!line.startsWith("|")) {
            return out;
        }
        StringBuilder cell = new StringBuilder();
        for (int i = 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 1 < line.length() && line.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                out.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        return out;
    }
}
