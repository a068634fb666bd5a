package dev.baton.cli;

import java.io.PrintWriter;

/**
 * The live line of {@code run --wait} on stderr. At a terminal it is rewritten in place (carriage
 * return, clear to end of line, cut to the terminal's width); otherwise (a log file, CI) a new line
 * is written only when {@code key} changes, so the output stays readable without escape codes.
 */
final class StatusLine {
    private final PrintWriter err;
    private final boolean inPlace;
    private final int width;
    private String lastKey;
    private boolean open;

    StatusLine(PrintWriter err, boolean inPlace, int width) {
        this.err = err;
        this.inPlace = inPlace;
        this.width = Math.max(20, width);
    }

    /** Shows {@code text}; {@code key} is what must change for a new line when not in place. */
    void show(String text, String key) {
        if (inPlace) {
            String cut = text.length() > width - 1 ? text.substring(0, width - 2) + "…" : text;
            err.print("\r\033[K" + cut);
            open = true;
        } else if (!key.equals(lastKey)) {
            err.println(text);
        }
        lastKey = key;
        err.flush();
    }

    /** Ends the line in place (so that what follows starts on a fresh line). */
    void finish() {
        if (open) {
            err.println();
            err.flush();
            open = false;
        }
    }
}
