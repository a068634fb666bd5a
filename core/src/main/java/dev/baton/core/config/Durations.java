package dev.baton.core.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them: "250ms", "30s", "5m", "2h", "1d", plain seconds ("30"), or ISO-8601 ("PT30S"). */
public final class Durations {
    private static final Pattern SHAPE = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)?");

    private Durations() {}

    public static Duration parse(String text) {
        String t = text.strip();
        Matcher m = SHAPE.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(t);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; use e.g. 500ms, 30s, 5m, 2h");
        }
    }

    /** The shortest exact form: "30s", "10m", "1500ms". */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms > 0) return ms / 86_400_000 + "d";
        if (ms % 3_600_000 == 0 && ms > 0) return ms / 3_600_000 + "h";
        if (ms % 60_000 == 0 && ms > 0) return ms / 60_000 + "m";
        if (ms % 1000 == 0) return ms / 1000 + "s";
        return ms + "ms";
    }
}
