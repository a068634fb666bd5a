package dev.baton.cli;

import java.util.Collection;
import java.util.Optional;

/**
 * The known word nearest to a mistyped one, by edit distance counting a swap of two neighbours as
 * one edit (so {@code --projetc} finds {@code --project} and {@code jbos} finds {@code jobs}, which
 * picocli's own suggestions, by prefix and by shared letter pairs, miss).
 */
final class NearestMatch {
    private NearestMatch() {}

    /** The closest candidate within a third of the word's length (at least 2 edits), if any. */
    static Optional<String> of(String typed, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(typed.toLowerCase(java.util.Locale.ROOT), c.toLowerCase(java.util.Locale.ROOT));
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        int allowed = Math.max(2, stripDashes(typed).length() / 3);
        return best != null && bestDistance <= allowed ? Optional.of(best) : Optional.empty();
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    private static String stripDashes(String s) {
        return s.replaceFirst("^-+", "");
    }
}
