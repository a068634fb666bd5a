package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Triage and alert groups through the assembled server over real sockets (docs/alerts.md,
 * "Triage and groups"; decision 0049; issue 44), on each database: the alerts one report's
 * judgement raised across several metrics are one group with the report's commit range; a group
 * is triaged as a whole and an alert alone; who and when are on each alert; the body is checked
 * before anything changes; viewers may read but not triage; every change is audited.
 */
abstract class AlertTriageContract {
    static final Instant T0 = Instant.parse("2025-12-01T00:00:00Z");
    static final List<String> BENCHMARKS = List.of("sort", "scan", "hash");

    @TempDir
    Path dir;

    TestServer s;
    int runs;
    String submitter;
    String viewer;

    /** The database URL, null for SQLite in the test's directory. */
    abstract String databaseUrl();

    @BeforeEach
    void start() {
        s = TestServer.assembled(dir, TestServer.config(dir, databaseUrl()));
        Fixtures.organization(s, "org", "team");
        Fixtures.project(s, "proj", "org");
        submitter = token("ann", "submitter");
        viewer = token("vic", "viewer");
        Fixtures.created(s.post(
                "/v0/projects/proj/thresholds",
                Map.of("testbed", "box", "measure", "latency", "model", "t_test", "upper_boundary", 0.95)));
    }

    @AfterEach
    void stop() {
        s.close();
    }

    String token(String user, String role) {
        Fixtures.created(s.post("/v0/users", Map.of("name", user)));
        assertThat(s.send("PUT", "/v0/projects/proj/members/" + user, Map.of("role", role), s.token)
                        .status())
                .isEqualTo(200);
        return Fixtures.created(s.post("/v0/tokens", Map.of("user", user, "role", role, "project", "proj")))
                .get("secret")
                .asText();
    }

    /** A direct run on main of commit {@code hash}: each benchmark's latency as given, an hour after the previous run. */
    JsonNode direct(String hash, double... latencies) {
        Instant end = T0.plus(Duration.ofHours(++runs));
        Map<String, Object> results = new LinkedHashMap<>();
        for (int i = 0; i < latencies.length; i++)
            results.put(BENCHMARKS.get(i), Map.of("latency", Map.of("value", latencies[i])));
        Map<String, Object> body = new HashMap<>(Map.of(
                "project",
                "proj",
                "branch",
                "main",
                "testbed",
                "box",
                "adapter",
                "json",
                "hash",
                hash,
                "start_time",
                end.minusSeconds(1).toString(),
                "end_time",
                end.toString(),
                "results",
                List.of(results)));
        return Fixtures.created(s.post("/v0/run", body)).get("report");
    }

    /** Five quiet runs of three benchmarks (10, 12, 11, 13, 14 ns each), commits aaaaaa1 to aaaaaa5. */
    void history() {
        double[] quiet = {10, 12, 11, 13, 14};
        for (int i = 0; i < quiet.length; i++) direct("aaaaaa" + (i + 1), quiet[i], quiet[i], quiet[i]);
    }

    TestServer.Response triage(String path, Map<String, Object> body, String bearer) {
        return s.send("POST", "/v0/projects/proj/" + path + "/triage", body, bearer);
    }

    @Test
    void oneReportsAlertsAcrossMetricsAreOneGroupWithItsCommitRange() {
        history();
        JsonNode report = direct("bbbbbb6", 16, 17, 18);

        JsonNode alerts = report.get("alerts");
        assertThat(alerts).hasSize(3);
        String group = alerts.get(0).get("group").asText();
        for (JsonNode a : alerts) {
            assertThat(a.get("group").asText()).isEqualTo(group);
            assertThat(a.at("/triage/state").asText()).isEqualTo("untriaged");
            assertThat(a.at("/triage/by").isMissingNode()).isTrue();
        }

        // A later report with one alert is another group, whose range starts at this one's commit.
        direct("cccccc7", 13, 12, 40);
        JsonNode page = s.get("/v0/projects/proj/alert-groups").json();
        assertThat(page.get("groups")).hasSize(2);
        JsonNode newest = page.at("/groups/0");
        JsonNode first = page.at("/groups/1");
        assertThat(first.get("uuid").asText()).isEqualTo(group);
        assertThat(first.get("report").asText()).isEqualTo(report.get("uuid").asText());
        assertThat(first.get("hash").asText()).isEqualTo("bbbbbb6");
        assertThat(first.get("previous_hash").asText()).isEqualTo("aaaaaa5");
        assertThat(first.get("branch").asText()).isEqualTo("main");
        assertThat(first.get("testbed").asText()).isEqualTo("box");
        assertThat(first.get("alerts")).hasSize(3);
        assertThat(first.at("/triage/state").asText()).isEqualTo("untriaged");
        assertThat(newest.get("hash").asText()).isEqualTo("cccccc7");
        assertThat(newest.get("previous_hash").asText()).isEqualTo("bbbbbb6");
        assertThat(newest.get("alerts")).hasSize(1);
        assertThat(newest.at("/alerts/0/benchmark").asText()).isEqualTo("hash");

        // One group, by report, by uuid; paging.
        assertThat(s.get("/v0/projects/proj/alert-groups?report="
                                + report.get("uuid").asText())
                        .json()
                        .at("/groups/0/uuid")
                        .asText())
                .isEqualTo(group);
        assertThat(s.get("/v0/projects/proj/alert-groups/" + group).json().get("alerts"))
                .hasSize(3);
        JsonNode one = s.get("/v0/projects/proj/alert-groups?limit=1").json();
        assertThat(one.get("groups")).hasSize(1);
        assertThat(s.get("/v0/projects/proj/alert-groups?limit=1&before="
                                + one.get("next").asText())
                        .json()
                        .at("/groups/0/uuid")
                        .asText())
                .isEqualTo(group);
        assertThat(s.get("/v0/projects/proj/alert-groups/no-such-group").code()).isEqualTo("alert_group_not_found");
    }

    @Test
    void aGroupIsTriagedAsAWholeWithWhoAndWhenOnEachAlertAndAudited() {
        history();
        String group = direct("bbbbbb6", 16, 17, 18).at("/alerts/0/group").asText();
        s.clock.advance(Duration.ofMinutes(7));
        Instant at = s.clock.instant();

        TestServer.Response r = triage(
                "alert-groups/" + group,
                Map.of("state", "culprit", "note", "the new allocator", "commit", "BBBBBB6"),
                submitter);

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        JsonNode g = r.json();
        assertThat(g.at("/triage/state").asText()).isEqualTo("culprit");
        assertThat(g.at("/triage/commit").asText()).isEqualTo("bbbbbb6");
        assertThat(g.get("alerts")).hasSize(3);
        for (JsonNode a : g.get("alerts")) {
            assertThat(a.at("/triage/state").asText()).isEqualTo("culprit");
            assertThat(a.at("/triage/note").asText()).isEqualTo("the new allocator");
            assertThat(a.at("/triage/commit").asText()).isEqualTo("bbbbbb6");
            assertThat(a.at("/triage/by").asText()).isEqualTo("user:ann");
            assertThat(Instant.parse(a.at("/triage/at").asText())).isEqualTo(at);
            // The same through the alert's own route, and status is untouched.
            JsonNode alone =
                    s.get("/v0/projects/proj/alerts/" + a.get("uuid").asText()).json();
            assertThat(alone.at("/triage/state").asText()).isEqualTo("culprit");
            assertThat(alone.get("status").asText()).isEqualTo("active");
        }

        // One alert alone: the group is now mixed, and the filter finds it by either state.
        String firstAlert = g.at("/alerts/0/uuid").asText();
        JsonNode alert = triage("alerts/" + firstAlert, Map.of("state", "false_positive"), submitter)
                .json();
        assertThat(alert.at("/triage/state").asText()).isEqualTo("false_positive");
        assertThat(alert.at("/triage/commit").isMissingNode()).isTrue();
        JsonNode mixed = s.get("/v0/projects/proj/alert-groups/" + group).json();
        assertThat(mixed.at("/triage/state").asText()).isEqualTo("mixed");
        assertThat(mixed.at("/triage/by").isMissingNode()).isTrue();
        assertThat(s.get("/v0/projects/proj/alert-groups?triage=false_positive")
                        .json()
                        .get("groups"))
                .hasSize(1);
        assertThat(s.get("/v0/projects/proj/alert-groups?triage=untriaged")
                        .json()
                        .get("groups"))
                .isEmpty();

        // Back to untriaged: nobody is named.
        JsonNode reset = triage("alert-groups/" + group, Map.of("state", "untriaged"), s.token)
                .json();
        assertThat(reset.at("/triage/state").asText()).isEqualTo("untriaged");
        assertThat(reset.at("/alerts/0/triage/by").isMissingNode()).isTrue();

        // Audited: who, which group or alert, which state.
        JsonNode events = s.get("/v0/audit?action=alert_group.triaged").json().get("events");
        assertThat(events).hasSize(2);
        JsonNode byAnn = events.get(1);
        assertThat(byAnn.get("actor").asText()).isEqualTo("user:ann");
        assertThat(byAnn.get("target").asText()).isEqualTo("/v0/projects/proj/alert-groups/" + group + "/triage");
        assertThat(byAnn.get("detail").toString()).contains(group).contains("culprit");
        JsonNode alertEvent = s.get("/v0/audit?action=alert.triaged").json().at("/events/0");
        assertThat(alertEvent.get("detail").toString()).contains(firstAlert).contains("false_positive");
    }

    @Test
    void aMalformedTriageIsRefusedAndChangesNothingAndAViewerMayOnlyRead() {
        history();
        String group = direct("bbbbbb6", 16, 17, 18).at("/alerts/0/group").asText();
        String path = "alert-groups/" + group;
        List<Object[]> cases = new ArrayList<>();
        cases.add(new Object[] {Map.of("state", "culprit"), "missing_field", "commit"});
        cases.add(new Object[] {Map.of("state", "culprit", "commit", "not-a-hash"), "invalid_field", "commit"});
        cases.add(new Object[] {Map.of("state", "expected", "commit", "bbbbbb6"), "invalid_field", "commit"});
        cases.add(new Object[] {Map.of("state", "fixed"), "invalid_field", "state"});
        cases.add(new Object[] {Map.of("note", "no state"), "missing_field", "state"});
        cases.add(new Object[] {Map.of("state", "expected", "note", "x".repeat(2_001)), "invalid_field", "note"});
        for (Object[] c : cases) {
            TestServer.Response r = triage(path, castMap(c[0]), submitter);
            assertThat(r.status()).as(r.text()).isEqualTo(400);
            assertThat(r.code()).as(r.text()).isEqualTo(c[1]);
            assertThat(r.json().get("field").asText()).isEqualTo(c[2]);
        }
        assertThat(triage(path, Map.of("state", "expected"), viewer).status()).isEqualTo(403);
        assertThat(s.send("GET", "/v0/projects/proj/alert-groups/" + group, null, viewer)
                        .status())
                .isEqualTo(200);
        JsonNode unchanged = s.get("/v0/projects/proj/alert-groups/" + group).json();
        assertThat(unchanged.at("/triage/state").asText()).isEqualTo("untriaged");
        assertThat(s.get("/v0/audit?action=alert_group.triaged").json().get("events"))
                .isEmpty();
        assertThat(triage("alerts/no-such-alert", Map.of("state", "expected"), submitter)
                        .code())
                .isEqualTo("alert_not_found");
        assertThat(s.get("/v0/projects/proj/alert-groups?triage=fixed").code()).isEqualTo("invalid_parameter");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMap(Object o) {
        return (Map<String, Object>) o;
    }
}
