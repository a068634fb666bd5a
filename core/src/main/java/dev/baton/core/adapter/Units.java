package dev.baton.core.adapter;

import java.util.Map;
import java.util.Optional;

/** Conversions into the measures' base units: nanoseconds for time, per second for rates. */
final class Units {
    private static final Map<String, Double> NANOS_PER = Map.ofEntries(
            Map.entry("ps", 1e-3),
            Map.entry("ns", 1.0),
            Map.entry("us", 1e3),
            Map.entry("µs", 1e3),
            Map.entry("μs", 1e3),
            Map.entry("ms", 1e6),
            Map.entry("s", 1e9),
            Map.entry("min", 60e9));

    private static final Map<String, Double> BYTES_PER = Map.ofEntries(
            Map.entry("B", 1.0),
            Map.entry("KB", 1e3),
            Map.entry("MB", 1e6),
            Map.entry("GB", 1e9),
            Map.entry("TB", 1e12),
            Map.entry("KiB", 1024.0),
            Map.entry("MiB", 1024.0 * 1024),
            Map.entry("GiB", 1024.0 * 1024 * 1024),
            Map.entry("TiB", 1024.0 * 1024 * 1024 * 1024));

    private static final Map<String, Double> ELEMENTS_PER =
            Map.of("elem", 1.0, "Kelem", 1e3, "Melem", 1e6, "Gelem", 1e9);

    private Units() {}

    /** Nanoseconds in one {@code unit} ("ns", "us", "µs", "ms", "s", …), if it is a time unit. */
    static Optional<Double> nanos(String unit) {
        return Optional.ofNullable(NANOS_PER.get(unit));
    }

    static double nanosOrThrow(String unit) {
        return nanos(unit).orElseThrow(() -> new AdapterException("unknown time unit '" + unit + "'"));
    }

    /** Bytes in one {@code unit} ("B", "KiB", "MB", …): decimal and binary prefixes as printed. */
    static Optional<Double> bytes(String unit) {
        return Optional.ofNullable(BYTES_PER.get(unit));
    }

    /** Elements in one {@code unit} ("elem", "Kelem", "Melem", "Gelem"), Criterion's element counts. */
    static Optional<Double> elements(String unit) {
        return Optional.ofNullable(ELEMENTS_PER.get(unit));
    }

    static double number(String text) {
        try {
            return Double.parseDouble(text.replace(",", ""));
        } catch (NumberFormatException e) {
            throw new AdapterException("'" + text + "' is not a number");
        }
    }
}
