package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;

/**
 * Prints log entries as the job wrote them: its stdout to stdout, its stderr to stderr, text as
 * sent (entries are chunks of the stream, not lines); a {@code dropped} marker becomes one note on
 * stderr. Remembers the last non-empty line, which {@code run --wait} shows on its status line.
 */
final class LogPrinter {
    private final PrintWriter out;
    private final PrintWriter err;
    private final StringBuilder partial = new StringBuilder();
    private volatile String lastLine;

    LogPrinter(PrintWriter out, PrintWriter err) {
        this.out = out;
        this.err = err;
    }

    /** A printer that only remembers the last line (for the status line of {@code run --wait}). */
    static LogPrinter silent() {
        return new LogPrinter(null, null);
    }

    void accept(JsonNode entry) {
        if (entry.has("dropped")) {
            if (err != null) {
                err.println("[baton: " + entry.path("dropped").asLong() + " bytes of output dropped here to keep up;"
                        + " the whole output is stored with the job]");
                err.flush();
            }
            return;
        }
        String text = entry.path("text").asText("");
        boolean stderr = "stderr".equals(entry.path("stream").asText());
        PrintWriter to = stderr ? err : out;
        if (to != null) {
            to.print(text);
            to.flush();
        }
        remember(text);
    }

    private synchronized void remember(String text) {
        partial.append(text);
        int end = partial.length();
        while (end > 0 && Character.isWhitespace(partial.charAt(end - 1))) end--;
        if (end == 0) return;
        int start = partial.lastIndexOf("\n", end - 1) + 1;
        lastLine = partial.substring(start, end).strip();
        // Keep only the current line: the log can be long, the status line needs one.
        partial.delete(0, Math.max(0, start));
    }

    /** The last non-empty line the job wrote (on either stream), or null. */
    String lastLine() {
        return lastLine;
    }
}
