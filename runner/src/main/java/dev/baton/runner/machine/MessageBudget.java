package dev.baton.runner.machine;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes a terminal message fit the channel's message limit. Each iteration's output is bounded by
 * the executor, but many iterations together can still exceed what the server accepts, and a
 * message over the limit would be rejected forever. So the largest text (a stream or a file) is
 * halved, with a marker, until the encoded message fits; exit codes and names are never dropped.
 */
final class MessageBudget {
    static final String MARKER = "\n[baton: truncated to fit the message limit]\n";
    private static final int MAX_ROUNDS = 256;

    private MessageBudget() {}

    static RunnerMessage.Terminal fit(RunnerMessage.Terminal message, int maxBytes) {
        RunnerMessage.Terminal current = message;
        for (int round = 0; round < MAX_ROUNDS && size(current) > maxBytes; round++) {
            List<IterationResult> results = shrinkLargest(results(current));
            if (results == null) break; // nothing left to cut
            current = with(current, results);
        }
        return current;
    }

    static int size(RunnerMessage message) {
        return Wire.encode(message).getBytes(StandardCharsets.UTF_8).length;
    }

    private static List<IterationResult> results(RunnerMessage.Terminal t) {
        return switch (t) {
            case RunnerMessage.Completed c -> c.results();
            case RunnerMessage.Failed f -> f.results();
            case RunnerMessage.Canceled c -> c.results();
        };
    }

    private static RunnerMessage.Terminal with(RunnerMessage.Terminal t, List<IterationResult> results) {
        return switch (t) {
            case RunnerMessage.Completed c -> new RunnerMessage.Completed(c.job(), c.lease(), results);
            case RunnerMessage.Failed f -> new RunnerMessage.Failed(f.job(), f.lease(), results, f.error());
            case RunnerMessage.Canceled c -> new RunnerMessage.Canceled(c.job(), c.lease(), results);
        };
    }

    /** Halves the longest text among all iterations; null when every text is already short. */
    private static List<IterationResult> shrinkLargest(List<IterationResult> results) {
        if (results == null) return null;
        int bestIteration = -1;
        String bestKey = null; // null = stdout, "" = stderr, else a file name
        int bestLength = MARKER.length() * 2;
        for (int i = 0; i < results.size(); i++) {
            IterationResult r = results.get(i);
            if (len(r.stdout()) > bestLength) { bestIteration = i; bestKey = null; bestLength = len(r.stdout()); }
            if (len(r.stderr()) > bestLength) { bestIteration = i; bestKey = ""; bestLength = len(r.stderr()); }
            if (r.output() != null) {
                for (var e : r.output().entrySet()) {
                    if (len(e.getValue()) > bestLength) { bestIteration = i; bestKey = e.getKey(); bestLength = len(e.getValue()); }
                }
            }
        }
        if (bestIteration < 0) return null;
        List<IterationResult> out = new ArrayList<>(results);
        IterationResult r = results.get(bestIteration);
        IterationResult cut;
        if (bestKey == null) cut = new IterationResult(r.exitCode(), half(r.stdout()), r.stderr(), r.output());
        else if (bestKey.isEmpty()) cut = new IterationResult(r.exitCode(), r.stdout(), half(r.stderr()), r.output());
        else {
            Map<String, String> files = new LinkedHashMap<>(r.output());
            files.put(bestKey, half(files.get(bestKey)));
            cut = new IterationResult(r.exitCode(), r.stdout(), r.stderr(), files);
        }
        out.set(bestIteration, cut);
        return out;
    }

    private static int len(String s) {
        return s == null ? 0 : s.length();
    }

    private static String half(String s) {
        String body = s.endsWith(MARKER) ? s.substring(0, s.length() - MARKER.length()) : s;
        return body.substring(0, body.length() / 2) + MARKER;
    }
}
