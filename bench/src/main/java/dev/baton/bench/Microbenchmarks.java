package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code bench jmh}: the JMH microbenchmarks (dev.baton.bench.jmh) through JMH's own command
 * line. Without arguments it uses short settings (1 fork, 2×1 s warm-up, 3×1 s measurement) so a
 * run takes about a minute; any argument is passed to JMH unchanged (e.g. {@code -h}, a regex).
 */
final class Microbenchmarks {
    private Microbenchmarks() {}

    static void main(String[] args) throws Exception {
        List<String> jmh = new ArrayList<>(List.of(args));
        if (jmh.isEmpty())
            jmh.addAll(List.of("-f", "1", "-wi", "2", "-w", "1s", "-i", "3", "-r", "1s", "dev.baton.bench.jmh"));
        org.openjdk.jmh.Main.main(jmh.toArray(String[]::new));
    }
}
