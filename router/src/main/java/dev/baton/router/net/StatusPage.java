package dev.baton.router.net;

import dev.baton.router.RouterStatus;

/** The router's status as a small HTML page (the same data as {@code GET /status}). */
final class StatusPage {
    private StatusPage() {}

    static String render(RouterStatus s) {
        StringBuilder h = new StringBuilder(
                        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Baton router</title>"
                                + "<meta http-equiv=\"refresh\" content=\"5\"><style>body{font-family:sans-serif}td,th{padding:2px 10px;text-align:left}</style>"
                                + "</head><body><h1>Baton router ")
                .append(esc(s.upstreamRunner()))
                .append("</h1><p>upstream: ")
                .append(s.upstreamConnected() ? "connected" : "disconnected")
                .append(" · specs ")
                .append(esc(String.join(", ", s.upstreamSpecs())))
                .append(" · policy ")
                .append(esc(s.policy()))
                .append("</p><h2>Runners</h2><table><tr><th>runner</th><th>specs</th>"
                        + "<th>connected</th><th>waiting for</th><th>jobs</th></tr>");
        for (var r : s.runners()) {
            h.append("<tr><td>")
                    .append(esc(r.name()))
                    .append("</td><td>")
                    .append(esc(String.join(", ", r.specs())))
                    .append("</td><td>")
                    .append(r.connected() ? "yes" : "no")
                    .append("</td><td>")
                    .append(r.free())
                    .append("</td><td>")
                    .append(r.jobs())
                    .append("</td></tr>");
        }
        h.append(
                "</table><h2>Jobs</h2><table><tr><th>job</th><th>project</th><th>spec</th><th>state</th><th>runner</th><th>held (s)</th></tr>");
        for (var j : s.jobs()) {
            h.append("<tr><td>")
                    .append(esc(j.job()))
                    .append("</td><td>")
                    .append(esc(j.project()))
                    .append("</td><td>")
                    .append(esc(j.spec()))
                    .append("</td><td>")
                    .append(esc(j.state()))
                    .append("</td><td>")
                    .append(esc(j.runner()))
                    .append("</td><td>")
                    .append(j.heldSeconds())
                    .append("</td></tr>");
        }
        return h.append("</table></body></html>").toString();
    }

    private static String esc(String text) {
        if (text == null) return "";
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
