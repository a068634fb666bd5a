package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /v0/schedules} on one server (SQLite, the injected clock): a schedule submits its run
 * body on its cron occurrences in its time zone, a delayed run once, a paused one never; missed
 * occurrences are folded into one run; bad input is refused and changes nothing.
 * Two nodes on one PostgreSQL: {@link PostgresScheduleTest}.
 */
class ScheduleApiTest {
    @TempDir
    Path dir;

    TestServer s;

    @BeforeEach
    void start() {
        s = new TestServer(dir);
        Fixtures.organization(s, "org", "team");
        Fixtures.project(s, "proj", "org");
        Fixtures.spec(s, "small");
    }

    @AfterEach
    void stop() {
        s.close();
    }

    static Map<String, Object> directRun() {
        return Map.of(
                "project",
                "proj",
                "adapter",
                "go_bench",
                "start_time",
                "2026-01-01T00:00:00Z",
                "end_time",
                "2026-01-01T00:01:00Z",
                "results",
                List.of("BenchmarkHash-8  5000  300 ns/op\n"));
    }

    static Map<String, Object> schedule(String name, String cron, String timezone, Object run) {
        Map<String, Object> body = new HashMap<>(Map.of("name", name, "cron", cron, "run", run));
        if (timezone != null) body.put("timezone", timezone);
        return body;
    }

    @Test
    void aCronScheduleSubmitsItsRunAtEachOccurrenceInItsTimeZone() {
        // 03:00 in Berlin is 02:00 UTC in winter; the clock starts at 2026-01-01T00:00Z.
        JsonNode created = Fixtures.created(
                s.post("/v0/schedules", schedule("nightly", "0 3 * * *", "Europe/Berlin", directRun())));
        assertThat(created.path("state").asText()).isEqualTo("active");
        assertThat(created.path("next_fire").asText()).isEqualTo("2026-01-01T02:00:00Z");
        assertThat(created.at("/run/adapter").asText()).isEqualTo("go_bench");

        s.clock.advance(Duration.ofMinutes(119));
        assertThat(s.server.fireDueSchedules()).as("not yet due").isZero();
        s.clock.advance(Duration.ofMinutes(1));
        assertThat(s.server.fireDueSchedules()).isEqualTo(1);
        assertThat(s.server.fireDueSchedules()).as("an occurrence fires once").isZero();

        JsonNode after = s.get("/v0/schedules/nightly").json();
        assertThat(after.path("next_fire").asText()).isEqualTo("2026-01-02T02:00:00Z");
        assertThat(after.path("last_fired").asText()).isEqualTo("2026-01-01T02:00:00Z");
        assertThat(after.hasNonNull("last_error")).isFalse();
        TestServer.Response report =
                s.get("/v0/projects/proj/reports/" + after.path("last_report").asText());
        assertThat(report.status()).as(report.text()).isEqualTo(200);
        assertThat(report.json().at("/results/BenchmarkHash-8/latency/value").asDouble())
                .isEqualTo(300.0);
    }

    @Test
    void occurrencesMissedWhileNoNodeRanAreFoldedIntoOneRun() {
        Fixtures.created(s.post("/v0/schedules", schedule("hourly", "@hourly", null, directRun())));
        s.clock.advance(Duration.ofHours(5).plusMinutes(30)); // five occurrences passed unseen
        assertThat(s.server.fireDueSchedules()).isEqualTo(1);
        assertThat(s.server.fireDueSchedules()).isZero();
        assertThat(s.get("/v0/schedules/hourly").json().path("next_fire").asText())
                .isEqualTo("2026-01-01T06:00:00Z");
    }

    @Test
    void aRunnerRunIsQueuedAsPostV0RunWouldQueueIt() {
        Fixtures.created(s.post(
                "/v0/schedules",
                schedule("bench", "*/10 * * * *", "UTC", Fixtures.runBody("proj", "small", Map.of()))));
        s.clock.advance(Duration.ofMinutes(10));
        assertThat(s.server.fireDueSchedules()).isEqualTo(1);
        assertThat(s.submitted).hasSize(1);
        assertThat(s.submitted.get(0).sourceIp()).startsWith("schedule:");
    }

    @Test
    void aDelayedRunFiresOnceAndIsThenDone() {
        Map<String, Object> body =
                new HashMap<>(Map.of("name", "later", "at", "2026-01-01T00:30:00Z", "run", directRun()));
        JsonNode created = Fixtures.created(s.post("/v0/schedules", body));
        assertThat(created.hasNonNull("cron")).isFalse();
        s.clock.advance(Duration.ofMinutes(30));
        assertThat(s.server.fireDueSchedules()).isEqualTo(1);
        s.clock.advance(Duration.ofDays(1));
        assertThat(s.server.fireDueSchedules()).isZero();
        JsonNode done = s.get("/v0/schedules/later").json();
        assertThat(done.path("state").asText()).isEqualTo("done");
        assertThat(done.hasNonNull("next_fire")).isFalse();
    }

    @Test
    void aPausedScheduleFiresNothingAndResumesFromNow() {
        String uuid = Fixtures.created(s.post("/v0/schedules", schedule("p", "*/5 * * * *", null, directRun())))
                .path("uuid")
                .asText();
        assertThat(s.post("/v0/schedules/" + uuid + "/pause", Map.of())
                        .json()
                        .path("state")
                        .asText())
                .isEqualTo("paused");
        s.clock.advance(Duration.ofMinutes(12));
        assertThat(s.server.fireDueSchedules()).isZero();
        JsonNode resumed = s.post("/v0/schedules/p/resume", Map.of()).json();
        assertThat(resumed.path("state").asText()).isEqualTo("active");
        assertThat(resumed.path("next_fire").asText())
                .as("occurrences while paused are not caught up")
                .isEqualTo("2026-01-01T00:15:00Z");
        assertThat(s.server.fireDueSchedules()).isZero();
    }

    @Test
    void listGetAndDelete() {
        String uuid = Fixtures.created(s.post("/v0/schedules", schedule("a", "@daily", null, directRun())))
                .path("uuid")
                .asText();
        Fixtures.created(s.post("/v0/schedules", schedule("b", "@daily", null, directRun())));
        assertThat(s.get("/v0/schedules").json())
                .extracting(n -> n.path("name").asText())
                .containsExactly("a", "b");
        assertThat(s.get("/v0/schedules/" + uuid).json().path("name").asText()).isEqualTo("a");
        assertThat(s.delete("/v0/schedules/a").status()).isEqualTo(204);
        assertThat(s.get("/v0/schedules/a").code()).isEqualTo("schedule_not_found");
        assertThat(s.delete("/v0/schedules/a").status()).isEqualTo(404);
        assertThat(s.get("/v0/schedules").json()).hasSize(1);
    }

    @Test
    void badSchedulesAreRefusedAndNothingIsStored() {
        Map<String, Object> both = new HashMap<>(schedule("x", "@daily", null, directRun()));
        both.put("at", "2026-01-02T00:00:00Z");
        assertThat(s.post("/v0/schedules", both).code()).isEqualTo("invalid_schedule");
        TestServer.Response cron = s.post("/v0/schedules", schedule("x", "61 * * * *", null, directRun()));
        assertThat(cron.status()).isEqualTo(400);
        assertThat(cron.json().path("field").asText()).isEqualTo("cron");
        assertThat(s.post("/v0/schedules", schedule("x", "@daily", "Mars/Olympus", directRun()))
                        .json()
                        .path("field")
                        .asText())
                .isEqualTo("timezone");
        Map<String, Object> at = new HashMap<>(Map.of("name", "x", "at", "tomorrow", "run", directRun()));
        assertThat(s.post("/v0/schedules", at).json().path("field").asText()).isEqualTo("at");
        // The run is validated as POST /v0/run validates it.
        Map<String, Object> unknownProject = new HashMap<>(directRun());
        unknownProject.put("project", "nope");
        assertThat(s.post("/v0/schedules", schedule("x", "@daily", null, unknownProject))
                        .status())
                .isEqualTo(404);
        assertThat(s.post("/v0/schedules", schedule("x", "@daily", null, Map.of("project", "proj", "bogus", 1)))
                        .code())
                .isEqualTo("unknown_field");
        assertThat(s.post("/v0/schedules", Map.of("cron", "@daily", "run", directRun()))
                        .code())
                .isEqualTo("missing_field");
        assertThat(s.get("/v0/schedules").json()).isEmpty();

        Fixtures.created(s.post("/v0/schedules", schedule("x", "@daily", null, directRun())));
        assertThat(s.post("/v0/schedules", schedule("x", "@hourly", null, directRun()))
                        .code())
                .isEqualTo("schedule_name_taken");
        assertThat(s.send("GET", "/v0/schedules", null, "wrong-token").status()).isEqualTo(401);
    }
}
