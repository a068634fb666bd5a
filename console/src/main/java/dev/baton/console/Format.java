package dev.baton.console;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How the console writes times, durations and sizes (UTC, to the second, as the API's times are read). */
public final class Format {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private Format() {}

    public static String time(Instant t) {
        return t == null ? "—" : TIME.format(t);
    }

    /** A machine-readable time for {@code <time datetime>}. */
    public static String iso(Instant t) {
        return t == null ? "" : t.toString();
    }

    public static String duration(Duration d) {
        if (d == null) return "—";
        long ms = d.toMillis();
        if (ms < 1000) return ms + " ms";
        long s = d.toSeconds();
        if (s < 60) return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        if (s < 3600) return s / 60 + " min " + s % 60 + " s";
        return s / 3600 + " h " + s % 3600 / 60 + " min";
    }

    public static String between(Instant from, Instant to) {
        return from == null || to == null ? "—" : duration(Duration.between(from, to));
    }

    public static String bytes(long n) {
        if (n < 1024) return n + " B";
        if (n < 1024 * 1024) return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
        if (n < 1024L * 1024 * 1024) return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
        return String.format(Locale.ROOT, "%.1f GiB", n / (1024.0 * 1024 * 1024));
    }

    /**
     * A metric as the console writes every number: digits grouped by thousands, never an
     * exponent (so 22,211.5 and 22,211 read alike). Whole numbers without decimals; from 1,000 up
     * one decimal; below, four significant digits.
     */
    public static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return String.valueOf(v);
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return String.format(Locale.ROOT, "%,d", (long) v);
        if (Math.abs(v) >= 1000) return String.format(Locale.ROOT, "%,.1f", v);
        return new java.math.BigDecimal(v)
                .round(new java.math.MathContext(4))
                .stripTrailingZeros()
                .toPlainString();
    }
}
