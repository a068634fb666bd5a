package dev.baton.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Rows of text printed in aligned columns (two spaces apart, the last column not padded). */
final class Table {
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... headers) {
        this.headers = List.of(headers);
    }

    Table row(String... cells) {
        if (cells.length != headers.size())
            throw new IllegalArgumentException("expected " + headers.size() + " cells, got " + cells.length);
        List<String> row = new ArrayList<>();
        for (String c : cells) row.add(c == null ? "-" : c.replaceAll("\\R", " "));
        rows.add(row);
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int[] width = new int[headers.size()];
        for (int i = 0; i < width.length; i++) width[i] = headers.get(i).length();
        for (List<String> row : rows)
            for (int i = 0; i < width.length; i++)
                width[i] = Math.max(width[i], row.get(i).length());
        line(out, headers, width);
        for (List<String> row : rows) line(out, row, width);
        out.flush();
    }

    private static void line(PrintWriter out, List<String> cells, int[] width) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            b.append(c);
            if (i < cells.size() - 1) b.append(" ".repeat(width[i] - c.length() + 2));
        }
        out.println(b.toString().stripTrailing());
    }
}
