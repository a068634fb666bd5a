package dev.baton.runner.machine;

import dev.baton.protocol.message.FailureCode;
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
 * message over the limit is refused (close 1009) however often it is sent. So the longest texts
 * (streams and files) are cut to one common length, with a marker, until the encoded message
 * fits; exit codes, iterations and file names are kept. When even that cannot fit (a limit
 * smaller than the iterations and names themselves), the result becomes a {@code failed} that
 * says so: the job ends with a reason instead of a result that is never delivered.
 */
final class MessageBudget {
    static final String MARKER = "\n[baton: truncated to fit the message limit]\n";
    /** The marker as JSON string content: each newline is escaped to two bytes. */
    private static final int MARKER_BYTES = MARKER.length() + 2;
    /** Rounds of cut-and-measure; each round cuts at least what the last one was over, so few are needed. */
    private static final int MAX_ROUNDS = 8;

    private MessageBudget() {}

    static RunnerMessage.Terminal fit(RunnerMessage.Terminal message, int maxBytes) {
        int size = size(message);
        if (size <= maxBytes) return message;
        List<IterationResult> original = results(message);
        if (original != null) {
            // Cuts are counted in chars, the limit in bytes: a char of text encodes to bytesPerChar on average.
            long chars = 0;
            for (int length : lengths(original)) chars += length;
            long textBytes = size - size(with(message, cutTo(original, 0, "")));
            double bytesPerChar = chars == 0 ? 1 : Math.max(1.0, (double) textBytes / chars);
            long need = (long) Math.ceil((size - (long) maxBytes) / bytesPerChar);
            for (int round = 0; round < MAX_ROUNDS; round++) {
                int cap = capRemoving(original, need);
                RunnerMessage.Terminal cut = with(message, cutTo(original, cap, MARKER));
                int cutSize = size(cut);
                if (cutSize <= maxBytes) return cut;
                if (cap == 0) break; // every text is down to its marker and it is still too big
                need += (long) Math.ceil((cutSize - (long) maxBytes) / bytesPerChar) + 1;
            }
        }
        return doesNotFit(message, size, maxBytes);
    }

    static int size(RunnerMessage message) {
        return Wire.encode(message).getBytes(StandardCharsets.UTF_8).length;
    }

    /** The largest length texts are cut to so that at least {@code need} chars go; 0 (cut everything) when no cap is enough. */
    private static int capRemoving(List<IterationResult> results, long need) {
        List<Integer> lengths = lengths(results);
        if (removed(lengths, 0) < need) return 0;
        int low = 0; // removes enough
        int high = lengths.stream().mapToInt(Integer::intValue).max().orElse(0); // removes nothing
        while (high - low > 1) {
            int mid = low + (high - low) / 2;
            if (removed(lengths, mid) >= need) low = mid;
            else high = mid;
        }
        return low;
    }

    private static List<Integer> lengths(List<IterationResult> results) {
        List<Integer> lengths = new ArrayList<>();
        for (IterationResult r : results) {
            lengths.add(len(r.stdout()));
            lengths.add(len(r.stderr()));
            if (r.output() != null) for (String file : r.output().values()) lengths.add(len(file));
        }
        return lengths;
    }

    /** Chars a cap removes: a text longer than the cap plus its marker becomes the cap's prefix and the marker. */
    private static long removed(List<Integer> lengths, int cap) {
        long removed = 0;
        for (int length : lengths) if (length > cap + MARKER_BYTES) removed += length - cap - MARKER_BYTES;
        return removed;
    }

    private static List<IterationResult> cutTo(List<IterationResult> results, int cap, String marker) {
        List<IterationResult> out = new ArrayList<>(results.size());
        for (IterationResult r : results) {
            Map<String, String> files = r.output();
            if (files != null) {
                Map<String, String> cutFiles = new LinkedHashMap<>();
                files.forEach((name, text) -> cutFiles.put(name, cut(text, cap, marker)));
                files = cutFiles;
            }
            out.add(new IterationResult(
                    r.exitCode(), cut(r.stdout(), cap, marker), cut(r.stderr(), cap, marker), files));
        }
        return out;
    }

    private static String cut(String text, int cap, String marker) {
        if (text == null || text.length() <= cap + marker.length() + 2) return text;
        String body = text.endsWith(MARKER) ? text.substring(0, text.length() - MARKER.length()) : text;
        int end = Math.min(cap, body.length());
        // never half a surrogate pair: the server refuses text with a lone surrogate
        if (end > 0 && Character.isHighSurrogate(body.charAt(end - 1))) end--;
        return body.substring(0, end) + marker;
    }

    /** The last resort: a failed result that says why, with the exit codes when they fit, else nothing but the reason. */
    private static RunnerMessage.Terminal doesNotFit(RunnerMessage.Terminal message, int size, int maxBytes) {
        String error = "the job's result (" + size + " bytes) does not fit the channel's message limit of " + maxBytes
                + " bytes, even with its output cut; its output was dropped";
        if (message instanceof RunnerMessage.Failed f && f.error() != null) error = f.error() + "; " + error;
        List<IterationResult> original = results(message);
        if (original != null) {
            List<IterationResult> codes = original.stream()
                    .map(r -> new IterationResult(
                            r.exitCode(), "", "", r.output() == null ? null : Map.<String, String>of()))
                    .toList();
            RunnerMessage.Failed withCodes =
                    new RunnerMessage.Failed(message.job(), message.lease(), codes, error, null, failureOf(message));
            if (size(withCodes) <= maxBytes) return withCodes;
        }
        return new RunnerMessage.Failed(message.job(), message.lease(), List.of(), error, null, failureOf(message));
    }

    /**
     * Why the cut message failed, kept so the server classifies it as the original (issue 41); a
     * completed that does not fit becomes a failure of the job's result itself.
     */
    private static String failureOf(RunnerMessage.Terminal message) {
        return message instanceof RunnerMessage.Failed f && f.failure() != null
                ? f.failure()
                : FailureCode.OTHER.wireName();
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
            case RunnerMessage.Failed f ->
                new RunnerMessage.Failed(f.job(), f.lease(), results, f.error(), f.lost(), f.failure());
            case RunnerMessage.Canceled c -> new RunnerMessage.Canceled(c.job(), c.lease(), results);
        };
    }

    private static int len(String s) {
        return s == null ? 0 : s.length();
    }
}
