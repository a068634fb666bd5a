package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton jobs logs} and {@code run --wait --logs} reading the live log. The server's logs
 * route (wave 2 contract: GET …/logs JSON, ?follow=true Server-Sent Events with Last-Event-ID) is
 * being built at the same time as this client, so these tests run the CLI against a small real
 * HTTP server that speaks exactly the contract's format; the rest of the CLI is tested against
 * the real Baton server (RunWaitTest, CliTest). Swap this for the real server once it has the route.
 */
class JobLogsTest {
    static final String JOB = "0b6c6a8e-1a2b-4c3d-8e9f-0123456789ab";
    static final String REPORT = "1b6c6a8e-1a2b-4c3d-8e9f-0123456789ab";
    static final String LOGS = "/v0/projects/p/jobs/" + JOB + "/logs";

    @TempDir
    Path dir;

    HttpServer http;
    final List<String> followRequests = new CopyOnWriteArrayList<>();
    volatile String jobStatus = "running";

    @BeforeEach
    void start() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", this::handle);
        http.start();
    }

    @AfterEach
    void stop() {
        http.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        String query =
                ex.getRequestURI().getQuery() == null ? "" : ex.getRequestURI().getQuery();
        if (path.equals(LOGS) && query.contains("follow=true")) {
            String last = ex.getRequestHeaders().getFirst("Last-Event-ID");
            followRequests.add(last == null ? "-" : last);
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                if (last == null) {
                    // first connection: two entries, then the connection drops (no end event)
                    out.write(event(1, "stdout", "compiling\n"));
                    out.write(event(2, "stderr", "warning: slow\n"));
                } else {
                    // resumed after Last-Event-ID: only what follows it, then the end
                    int after = Integer.parseInt(last);
                    for (int seq = after + 1; seq <= 3; seq++) out.write(event(seq, "stdout", "line " + seq + "\n"));
                    out.write(("event: end\ndata: {\"status\":\"processed\"}\n\n").getBytes(StandardCharsets.UTF_8));
                }
            }
            return;
        }
        if (path.equals(LOGS)) {
            long after = query.startsWith("after=") ? Long.parseLong(query.substring(6)) : 0;
            String entries = after == 0
                    ? "[{\"seq\":1,\"stream\":\"stdout\",\"iteration\":0,\"text\":\"hello\\n\"},"
                            + "{\"seq\":2,\"stream\":\"stdout\",\"iteration\":0,\"dropped\":4096},"
                            + "{\"seq\":3,\"stream\":\"stdout\",\"iteration\":0,\"text\":\"world\\n\"}]"
                    : "[]";
            json(
                    ex,
                    200,
                    "{\"job\":\"" + JOB + "\",\"status\":\"" + jobStatus + "\",\"entries\":" + entries + ",\"next\":"
                            + (after == 0 ? 4 : after) + ",\"complete\":" + (after != 0) + "}");
            return;
        }
        if (path.equals("/v0/projects/p/jobs/" + JOB)) {
            json(
                    ex,
                    200,
                    "{\"uuid\":\"" + JOB + "\",\"report\":\"" + REPORT + "\",\"status\":\"" + jobStatus + "\","
                            + "\"started\":\"2026-01-01T00:00:00Z\",\"completed\":\"2026-01-01T00:00:02Z\"}");
            return;
        }
        if (path.equals("/v0/projects/p/reports/" + REPORT)) {
            json(
                    ex,
                    200,
                    "{\"uuid\":\"" + REPORT + "\",\"adapter\":\"json\",\"results\":{\"b\":{\"m\":{\"value\":1}}},"
                            + "\"iterations\":[{\"iteration\":0,\"results\":{\"b\":{\"m\":{\"value\":1}}},\"error\":null}]}");
            return;
        }
        json(ex, 404, "{\"code\":\"route_not_found\",\"message\":\"no such endpoint\"}");
    }

    private static byte[] event(int seq, String stream, String text) {
        String data = "{\"seq\":" + seq + ",\"stream\":\"" + stream + "\",\"iteration\":0,\"text\":"
                + dev.baton.protocol.message.Wire.encode(text) + "}";
        return ("id: " + seq + "\nevent: log\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void json(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    CliRun.Result baton(String... args) {
        String url = "http://127.0.0.1:" + http.getAddress().getPort();
        return CliRun.run(CliRun.environment(dir, Map.of("BATON_SERVER", url, "BATON_TOKEN", "t")), args);
    }

    @Test
    void followReadsAcrossADroppedConnectionWithoutGapsOrRepeats() {
        CliRun.Result r = baton("jobs", "logs", "--project", "p", "-f", JOB);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("compiling\nline 3\n");
        assertThat(r.err()).startsWith("warning: slow\n").contains("ended: processed");
        assertThat(followRequests).containsExactly("-", "2");
    }

    @Test
    void followWithJsonPrintsOneEntryPerLine() {
        CliRun.Result r = baton("jobs", "logs", "--project", "p", "-f", "--json", JOB);
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.stream().map(l -> CliRun.parse(l).path("seq").asInt()).toList())
                .containsExactly(1, 2, 3);
    }

    @Test
    void withoutFollowTheLogSoFarIsPrintedAndDropsAreNoted() {
        CliRun.Result r = baton("jobs", "logs", "--project", "p", JOB);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("hello\nworld\n");
        assertThat(r.err()).contains("4096 bytes of output dropped");

        JsonNode json = baton("jobs", "logs", "--project", "p", "--json", JOB).json();
        assertThat(json.path("entries")).hasSize(3);
        assertThat(json.path("job").asText()).isEqualTo(JOB);
    }

    @Test
    void runWaitWithLogsStreamsTheLogThenPrintsTheMetrics() {
        jobStatus = "running";
        // the job ends once the follower has resumed: the status poll then sees it processed
        Thread ender = Thread.ofVirtual().start(() -> {
            while (followRequests.size() < 2) LockSupport.parkNanos(1_000_000);
            jobStatus = "processed";
        });
        JobWatch watch = new JobWatch(
                new ApiClient("http://127.0.0.1:" + http.getAddress().getPort(), "t"),
                "p",
                JOB,
                REPORT,
                CliRun.environment(dir, Map.of()),
                new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(err, true),
                new JobWatch.Settings(
                        true, false, null, java.time.Duration.ofSeconds(30), java.time.Duration.ofMillis(20)));
        assertThat(watch.run()).isEqualTo(ExitCodes.OK);
        ender.interrupt();
        assertThat(out.toString())
                .startsWith("compiling\nline 3\n")
                .contains("Job " + JOB + " processed (ran 2000 ms)")
                .containsPattern("(?m)^b +m +1 +- +-$");
        assertThat(err.toString()).contains("warning: slow").contains("is running");
    }

    final java.io.StringWriter out = new java.io.StringWriter();
    final java.io.StringWriter err = new java.io.StringWriter();

    @Test
    void aServerWithoutTheLogsRouteIsSaidOnce() {
        CliRun.Result r = baton("jobs", "logs", "--project", "p", "00000000-0000-4000-8000-000000000000");
        assertThat(r.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(r.err().strip())
                .startsWith("baton: this server has no live logs")
                .contains("baton jobs get --json")
                .doesNotContain("\n");
    }
}
