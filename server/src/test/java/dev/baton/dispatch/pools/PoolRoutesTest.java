package dev.baton.dispatch.pools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.store.AuditFilter;
import dev.baton.store.Pool;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /v0/pools} on the assembled server over real sockets, on SQLite (issue 43): create,
 * list, get with machines, update, delete, every refusal a JSON code that changes nothing, and
 * the audit. Another node holds the scaler lease, so the server's own scaler never acts on what
 * the tests write.
 */
class PoolRoutesTest {
    @TempDir
    Path dataDir;

    TestServer server;

    @BeforeEach
    void start() {
        server = TestServer.assembled(dataDir, TestServer.config(dataDir));
        assertThat(server.post(
                                "/v0/specs",
                                Map.of(
                                        "name",
                                        "small",
                                        "slug",
                                        "small",
                                        "architecture",
                                        "x86_64",
                                        "cpu",
                                        1,
                                        "memory",
                                        1L << 30,
                                        "disk",
                                        1L << 30))
                        .status())
                .isEqualTo(201);
        // Another node holds the scaler lease (taken before any pool exists, so before this
        // server's own scaler, which runs on every node, could take it): the machine a test writes
        // stays as written while the test reads it (no boot timeout, no stop behind its back).
        assertThat(server.server
                        .store()
                        .pools()
                        .takeScalerLease(
                                "another-node",
                                server.clock.instant(),
                                server.clock.instant().plus(Duration.ofDays(1))))
                .isTrue();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Map<String, Object> body(Object... kv) {
        Map<String, Object> m =
                new HashMap<>(Map.of("slug", "burst", "spec", "small", "max", 4, "provider", "process"));
        for (int i = 0; i < kv.length; i += 2) {
            if (kv[i + 1] == null) m.remove((String) kv[i]);
            else m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private void refused(TestServer.Response r, int status, String code, String field) {
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.code()).isEqualTo(code);
        if (field != null) assertThat(r.json().path("field").asText()).isEqualTo(field);
    }

    @Test
    void createListGetUpdateDeleteAndAudit() {
        TestServer.Response created = server.post(
                "/v0/pools",
                body(
                        "labels",
                        Map.of("pool", "burst"),
                        "idle_timeout_seconds",
                        30,
                        "provider_config",
                        Map.of("args", "--executor process")));
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        JsonNode p = created.json();
        assertThat(p.path("slug").asText()).isEqualTo("burst");
        assertThat(p.path("spec").asText()).isEqualTo("small");
        assertThat(p.path("labels").path("pool").asText()).isEqualTo("burst");
        assertThat(p.path("min_idle").asInt()).isZero();
        assertThat(p.path("max").asInt()).isEqualTo(4);
        assertThat(p.path("idle_timeout_seconds").asLong()).isEqualTo(30);
        assertThat(p.path("boot_timeout_seconds").asLong()).isEqualTo(300);
        assertThat(p.path("provider_config").path("args").asText()).isEqualTo("--executor process");
        assertThat(p.path("machines")).isEmpty();

        assertThat(server.get("/v0/pools").json().path("pools"))
                .singleElement()
                .satisfies(x -> assertThat(x.path("uuid").asText())
                        .isEqualTo(p.path("uuid").asText()));

        // A machine row as the scaler writes it shows on GET with its state, age and job.
        Pool pool = server.server.store().pools().findPool("burst").orElseThrow();
        server.server.store().pools().addMachine(pool.id(), null, null, "node-x", server.clock.instant());
        server.clock.advance(Duration.ofSeconds(7));
        JsonNode one = server.get("/v0/pools/" + p.path("uuid").asText()).json();
        assertThat(one.path("starting").asInt()).isEqualTo(1);
        assertThat(one.path("machines")).singleElement().satisfies(m -> {
            assertThat(m.path("state").asText()).isEqualTo("starting");
            assertThat(m.path("node").asText()).isEqualTo("node-x");
            assertThat(m.path("age_seconds").asLong()).isEqualTo(7);
        });

        // /metrics: the machines by state and the failed starts, read from the store at the scrape.
        String metrics = server.get("/metrics").text();
        assertThat(metrics)
                .contains("baton_pool_machines{pool=\"burst\",state=\"starting\"} 1.0")
                .contains("baton_pool_machines{pool=\"burst\",state=\"busy\"} 0.0")
                .contains("baton_pool_failed_starts{pool=\"burst\"} 0.0");

        TestServer.Response updated = server.patch("/v0/pools/burst", Map.of("max", 2, "min_idle", 0));
        assertThat(updated.status()).as(updated.text()).isEqualTo(200);
        assertThat(updated.json().path("max").asInt()).isEqualTo(2);
        assertThat(updated.json().path("labels").path("pool").asText()).isEqualTo("burst"); // kept

        assertThat(server.delete("/v0/pools/burst").status()).isEqualTo(204);
        refused(server.get("/v0/pools/burst"), 404, "pool_not_found", null);
        assertThat(server.get("/v0/pools").json().path("pools")).isEmpty();

        var actions = server.server.store().access().audit(new AuditFilter(null, null, null, null, null, 50)).stream()
                .map(e -> e.action())
                .toList();
        assertThat(actions).contains("pool.created", "pool.updated", "pool.deleted");
    }

    @Test
    void badInputIsRefusedWithACodeAndChangesNothing() {
        refused(server.post("/v0/pools", body("slug", null)), 400, "missing_field", "slug");
        refused(server.post("/v0/pools", body("slug", "Not A Slug")), 400, "invalid_field", "slug");
        refused(server.post("/v0/pools", body("max", 0)), 400, "invalid_field", "max");
        refused(server.post("/v0/pools", body("max", 1001)), 400, "invalid_field", "max");
        refused(server.post("/v0/pools", body("min_idle", 5)), 400, "invalid_field", "min_idle");
        refused(
                server.post("/v0/pools", body("boot_timeout_seconds", 0)),
                400,
                "invalid_field",
                "boot_timeout_seconds");
        refused(server.post("/v0/pools", body("provider", "kubernetes")), 400, "invalid_field", "provider");
        refused(server.post("/v0/pools", body("spec", "nope")), 404, "spec_not_found", null);
        refused(server.post("/v0/pools", body("maximum", 3)), 400, "unknown_field", null);
        assertThat(server.get("/v0/pools").json().path("pools")).isEmpty();

        assertThat(server.post("/v0/pools", body()).status()).isEqualTo(201);
        refused(server.post("/v0/pools", body()), 409, "pool_exists", null);
        refused(server.patch("/v0/pools/burst", Map.of("slug", "other")), 400, "invalid_field", "slug");
        refused(server.patch("/v0/pools/burst", Map.of("min_idle", 9)), 400, "invalid_field", "min_idle");
        refused(server.patch("/v0/pools/nope", Map.of("max", 2)), 404, "pool_not_found", null);
        refused(server.delete("/v0/pools/nope"), 404, "pool_not_found", null);
        assertThat(server.get("/v0/pools/burst").json().path("max").asInt()).isEqualTo(4);
    }
}
