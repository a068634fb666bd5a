package dev.baton.alerts;

import dev.baton.store.Alert;
import dev.baton.store.AlertFilter;
import dev.baton.store.Alerts;
import dev.baton.store.MetricPoint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * What a judged report says where the pull request is (docs/pull-requests.md): whether it
 * passed (no active alert), a one-line title, and a Markdown body with one row per metric. The
 * body starts with a hidden marker naming the project, branch and testbed, by which the sticky
 * comment is found again on the host should its id never have been stored.
 */
record ResultsSummary(boolean passed, String title, String markdown) {
    /** Most metric rows in a body: GitHub refuses a comment over 65,536 characters. */
    static final int MAX_ROWS = 200;
    /** Most characters in a body, below GitHub's 65,535 for a check run's summary and a comment. */
    static final int MAX_CHARS = 60_000;

    static ResultsSummary of(
            Alerts store,
            long projectId,
            String projectUuid,
            long reportId,
            String reportUuid,
            String branch,
            String testbed,
            String hash) {
        List<MetricPoint> metrics = store.reportMetrics(reportId);
        List<Alert> alerts = store.alerts(new AlertFilter(projectId, Alert.ACTIVE, null, null, reportUuid, null, 1000));
        boolean passed = alerts.isEmpty();
        String title = passed
                ? metrics.size() + (metrics.size() == 1 ? " metric" : " metrics") + ", no alert"
                : alerts.size() + (alerts.size() == 1 ? " alert" : " alerts") + " in " + metrics.size()
                        + (metrics.size() == 1 ? " metric" : " metrics");
        StringBuilder md = new StringBuilder();
        md.append(marker(projectUuid, branch, testbed)).append('\n');
        md.append("### Baton: ")
                .append(passed ? "passed" : "alerts")
                .append(" on `")
                .append(code(testbed))
                .append("`, branch `")
                .append(code(branch))
                .append("`\n\n");
        md.append(title);
        if (hash != null)
            md.append(" at commit `")
                    .append(hash, 0, Math.min(12, hash.length()))
                    .append('`');
        md.append(" (report `").append(reportUuid).append("`).\n\n");
        if (!metrics.isEmpty()) {
            md.append("| Benchmark | Measure | Value | Limits | |\n|---|---|---:|---|---|\n");
            int rows = 0;
            for (MetricPoint m : metrics) {
                if (rows++ == MAX_ROWS) {
                    md.append("\n… and ").append(metrics.size() - MAX_ROWS).append(" more metrics.\n");
                    break;
                }
                String mark = "";
                for (Alert a : alerts) {
                    if (a.benchmark().equals(m.benchmark()) && a.measure().equals(m.measure()))
                        mark = a.side().equals("upper") ? "alert: above" : "alert: below";
                }
                md.append("| ")
                        .append(cell(m.benchmark()))
                        .append(" | ")
                        .append(cell(m.measure()))
                        .append(" | ")
                        .append(number(m.value()))
                        .append(" | ")
                        .append(limits(m))
                        .append(" | ")
                        .append(mark)
                        .append(" |\n");
            }
        }
        return new ResultsSummary(passed, title, cut(md.toString()));
    }

    /** A body within {@link #MAX_CHARS}, saying so when it was cut. */
    static String cut(String md) {
        if (md.length() <= MAX_CHARS) return md;
        return md.substring(0, MAX_CHARS - 40) + "\n\n… (cut: longer than a comment may be)\n";
    }

    /** The sticky comment's hidden identity: a hash, so no branch name can close the HTML comment. */
    static String marker(String projectUuid, String branch, String testbed) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((projectUuid + "\n" + branch + "\n" + testbed).getBytes(StandardCharsets.UTF_8));
            return "<!-- baton-results:" + HexFormat.of().formatHex(digest, 0, 12) + " -->";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String limits(MetricPoint m) {
        StringBuilder s = new StringBuilder();
        for (MetricPoint.StoredBoundary b : m.boundaries()) {
            if (!s.isEmpty()) s.append("; ");
            s.append(b.lowerLimit() == null ? "" : number(b.lowerLimit()))
                    .append(" – ")
                    .append(b.upperLimit() == null ? "" : number(b.upperLimit()))
                    .append(" (")
                    .append(b.model())
                    .append(')');
        }
        return s.toString();
    }

    static String number(double v) {
        return String.format(Locale.ROOT, "%,.4g", v);
    }

    /** A table cell: a pipe or a line break would end it. */
    private static String cell(String s) {
        return s.replace("\\", "\\\\").replace("|", "\\|").replace('\n', ' ').replace('\r', ' ');
    }

    private static String code(String s) {
        return s.replace("`", "'").replace('\n', ' ').replace('\r', ' ');
    }
}
