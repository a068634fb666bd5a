package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.EdgeSettings;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.web.http.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Behind trusted_proxies (issue 41) the client is the right-most address of X-Forwarded-For that
 * is not a trusted proxy: the unclaimed tier's per-IP limit (the job's source IP) and the audit
 * log see it; a peer that is not trusted cannot choose its address by sending the header.
 */
class ForwardedClientAddressTest {
    @TempDir
    Path dataDir;

    /** A run submitted through a "proxy" at 127.0.0.1 that forwarded {@code forwardedFor}; the job's source IP. */
    private static String submittedFrom(TestServer s, String forwardedFor) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(s.url("/v0/run")))
                .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(Fixtures.runBody("p-un", "small", Map.of()))))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + s.token);
        if (forwardedFor != null) request.header("X-Forwarded-For", forwardedFor);
        JsonNode job = Fixtures.created(s.send(request.build())).path("job");
        return s.server
                .store()
                .runs()
                .findJob(JobUuid.parse(job.path("uuid").asText()))
                .orElseThrow()
                .sourceIp();
    }

    private static TestServer server(Path dataDir, String trustedProxies) {
        ServerConfig config = TestServer.config(dataDir).withTrustedProxies(EdgeSettings.cidrs(trustedProxies));
        TestServer s = TestServer.assembled(dataDir, config);
        Fixtures.organization(s, "un", "unclaimed");
        Fixtures.project(s, "p-un", "un");
        Fixtures.spec(s, "small");
        return s;
    }

    @Test
    void aTrustedProxysForwardedAddressIsTheClientForTheJobAndTheAudit() {
        try (TestServer s = server(dataDir, "127.0.0.1/32")) {
            assertThat(submittedFrom(s, "203.0.113.9")).isEqualTo("203.0.113.9");
            // A client that sends its own header: the proxy appends what it saw, and only that is believed.
            assertThat(submittedFrom(s, "198.51.100.1, 203.0.113.9")).isEqualTo("203.0.113.9");
            // No header from a trusted proxy: the proxy itself is all that is known.
            assertThat(submittedFrom(s, null)).isEqualTo("127.0.0.1");

            HttpRequest audited = HttpRequest.newBuilder(URI.create(s.url("/v0/runners")))
                    .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(Map.of("name", "box", "slug", "box"))))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + s.token)
                    .header("X-Forwarded-For", "192.0.2.44")
                    .build();
            assertThat(s.send(audited).status()).isEqualTo(201);
            JsonNode created = null;
            for (JsonNode event : s.get("/v0/audit").json().path("events")) {
                if (event.path("action").asText().equals("runner.created")) created = event;
            }
            assertThat(created).as(s.get("/v0/audit").text()).isNotNull();
            assertThat(created.path("address").asText()).isEqualTo("192.0.2.44");
        }
    }

    @Test
    void aChainOfTrustedProxiesIsWalkedFromTheRight() {
        try (TestServer s = server(dataDir, "127.0.0.1, 10.0.0.0/8, fd00::/8")) {
            // client → edge proxy 10.1.2.3 → inner proxy fd00::7 → the server's peer 127.0.0.1
            assertThat(submittedFrom(s, "203.0.113.9, 10.1.2.3, fd00::7")).isEqualTo("203.0.113.9");
            assertThat(submittedFrom(s, "2001:db8::5, 10.1.2.3")).isEqualTo("2001:db8:0:0:0:0:0:5");
            // Every hop a trusted proxy: the first of them is the nearest to the client that is known.
            assertThat(submittedFrom(s, "10.9.9.9, 10.1.2.3")).isEqualTo("10.9.9.9");
        }
    }

    @Test
    void anUntrustedPeersHeaderIsIgnoredSoNobodySpoofsTheLimit() {
        try (TestServer s = server(dataDir, "10.0.0.0/8")) {
            assertThat(submittedFrom(s, "203.0.113.9")).isEqualTo("127.0.0.1");
        }
        try (TestServer s = server(dataDir.resolve("off"), "off")) {
            assertThat(submittedFrom(s, "203.0.113.9")).isEqualTo("127.0.0.1");
        }
    }
}
