package dev.baton.core.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte sizes: plain bytes ("1048576") or with a unit ("512KiB", "16MiB", "1GiB", "10MB"). */
public final class Sizes {
    private static final Pattern SHAPE = Pattern.compile("(\\d{1,18})\\s*(B|KB|KiB|MB|MiB|GB|GiB)?");

    private Sizes() {}

    public static long parse(String text) {
        Matcher m = SHAPE.matcher(text.strip());
        if (!m.matches())
            throw new IllegalArgumentException("'" + text + "' is not a size; use bytes or e.g. 512KiB, 16MiB, 1GiB");
        long n = Long.parseLong(m.group(1));
        long unit = switch (m.group(2) == null ? "B" : m.group(2)) {
            case "KB" -> 1000L;
            case "KiB" -> 1024L;
            case "MB" -> 1000L * 1000;
            case "MiB" -> 1024L * 1024;
            case "GB" -> 1000L * 1000 * 1000;
            case "GiB" -> 1024L * 1024 * 1024;
            default -> 1L;
        };
        return Math.multiplyExact(n, unit);
    }
}
