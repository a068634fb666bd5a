package dev.baton.runner.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What this machine's /proc and /sys say, read directly by tests to check the fingerprint against. */
public final class HostFacts {
    private HostFacts() {}

    /** A one-value file, stripped. */
    public static String read(Path p) throws IOException {
        return Files.readString(p).strip();
    }

    /** A /proc/meminfo value in bytes. */
    public static long meminfo(String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith(key + ":")) return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
        throw new AssertionError(key + " not in /proc/meminfo");
    }
}
