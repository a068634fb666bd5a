package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stored change points through the assembled server over real sockets, on each database
 * (docs/alerts.md, "Change points"; decision 0056): a step in two benchmarks of one commit is
 * listed with its commit range, size, interval and p-value; both alerts are one group, the group
 * of the commit where the change starts, which lists the change points and is triaged like any
 * group; filters, one by uuid, and the errors.
 */
abstract class ChangePointApiContract {
    static final Instant T0 = Instant.parse("2025-12-01T00:00:00Z");
    static final double[] STEP = {10, 10.1, 9.9, 10, 10.2, 9.8, 12, 12.1, 11.9};

    @TempDir
    Path dir;

    TestServer s;
    int runs;

    /** The database URL, null for SQLite in the test's directory. */
    abstract String databaseUrl();

    @BeforeEach
    void start() {
        s = TestServer.assembled(dir, TestServer.config(dir, databaseUrl()));
        Fixtures.organization(s, "org", "team");
        Fixtures.project(s, "proj", "org");
        Fixtures.created(s.post(
                "/v0/projects/proj/thresholds",
                Map.of("testbed", "box", "measure", "latency", "model", "change_point")));
    }

    @AfterEach
    void stop() {
        s.close();
    }

    /** A direct run on main of commit {@code hash}: benchmarks sort and scan, scan at twice sort's latency. */
    JsonNode direct(String hash, double latency) {
        Instant end = T0.plus(Duration.ofHours(++runs));
        Map<String, Object> results = new LinkedHashMap<>();
        results.put("sort", Map.of("latency", Map.of("value", latency)));
        results.put("scan", Map.of("latency", Map.of("value", 2 * latency)));
        Map<String, Object> body = new HashMap<>(
                Map.of("project", "proj", "branch", "main", "testbed", "box", "adapter", "json", "hash", hash));
        body.put("start_time", end.minusSeconds(1).toString());
        body.put("end_time", end.toString());
        body.put("results", List.of(results));
        return Fixtures.created(s.post("/v0/run", body)).get("report");
    }

    @Test
    void aStepIsListedWithItsRangeAndItsAlertsAreOneGroupOfTheCommitWhereItStarts() {
        JsonNode last = null;
        for (int i = 0; i < STEP.length; i++) last = direct("aaaaaa" + (i + 1), STEP[i]);
        assertThat(last.get("alerts")).hasSize(2);

        JsonNode page = s.get("/v0/projects/proj/change-points").json();
        assertThat(page.get("change_points")).hasSize(2);
        for (JsonNode c : page.get("change_points")) {
            assertThat(c.get("state").asText()).isEqualTo("current");
            assertThat(c.get("hash").asText()).isEqualTo("aaaaaa7");
            assertThat(c.get("previous_hash").asText()).isEqualTo("aaaaaa6");
            assertThat(c.get("side").asText()).isEqualTo("upper");
            assertThat(c.get("change").asDouble()).isBetween(0.1999, 0.2001);
            assertThat(c.get("change_interval")).hasSize(2);
            assertThat(c.at("/change_interval/0").asDouble()).isLessThan(0.2);
            assertThat(c.at("/change_interval/1").asDouble()).isGreaterThan(0.2);
            assertThat(c.get("p_value").asDouble()).isLessThan(0.001);
            assertThat(c.get("replaced_by").isNull()).isTrue();
            assertThat(c.at("/triage/state").asText()).isEqualTo("untriaged");
            assertThat(c.get("found_by").asText()).isEqualTo(last.get("uuid").asText());
        }
        String group = last.at("/alerts/0/group").asText();
        assertThat(last.at("/alerts/1/group").asText()).isEqualTo(group);

        JsonNode g = s.get("/v0/projects/proj/alert-groups/" + group).json();
        assertThat(g.get("hash").asText()).isEqualTo("aaaaaa7");
        assertThat(g.get("previous_hash").asText()).isEqualTo("aaaaaa6");
        assertThat(g.get("change_points")).hasSize(2);
        assertThat(s.get("/v0/projects/proj/alert-groups").json().at("/groups/0/change_points"))
                .hasSize(2);

        // Triaging the group triages the change points' alerts.
        TestServer.Response t = s.send(
                "POST",
                "/v0/projects/proj/alert-groups/" + group + "/triage",
                Map.of("state", "culprit", "commit", "aaaaaa7"),
                s.token);
        assertThat(t.status()).as(t.text()).isEqualTo(200);
        String uuid = page.at("/change_points/0/uuid").asText();
        JsonNode one = s.get("/v0/projects/proj/change-points/" + uuid).json();
        assertThat(one.at("/triage/state").asText()).isEqualTo("culprit");
        assertThat(one.get("group").asText()).isEqualTo(group);

        // Filters and paging.
        assertThat(s.get("/v0/projects/proj/change-points?benchmark=scan")
                        .json()
                        .get("change_points"))
                .singleElement()
                .satisfies(c -> assertThat(c.get("after").asDouble()).isBetween(23.99, 24.01));
        assertThat(s.get("/v0/projects/proj/change-points?state=withdrawn")
                        .json()
                        .get("change_points"))
                .isEmpty();
        assertThat(s.get("/v0/projects/proj/change-points?group=" + group)
                        .json()
                        .get("change_points"))
                .hasSize(2);
        JsonNode first = s.get("/v0/projects/proj/change-points?limit=1").json();
        assertThat(first.get("change_points")).hasSize(1);
        assertThat(s.get("/v0/projects/proj/change-points?limit=1&before="
                                + first.get("next").asText())
                        .json()
                        .get("change_points"))
                .hasSize(1);

        assertThat(s.get("/v0/projects/proj/change-points?state=gone").code()).isEqualTo("invalid_parameter");
        assertThat(s.get("/v0/projects/proj/change-points/no-such").code()).isEqualTo("change_point_not_found");
    }
}
