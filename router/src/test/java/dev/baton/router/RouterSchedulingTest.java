package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.router.policy.FirstCome;
import dev.baton.router.testing.Fleet;
import dev.baton.router.testing.RawRunner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19 through a router (docs/scheduling.md, "Through a router"): a real server, a real
 * router and raw runners behind it over real sockets. The router's {@code ready} carries the
 * labels every waiting runner has and the images any of them holds, so label routing and image
 * affinity see the runners behind it.
 */
class RouterSchedulingTest {
    private static final ImageDigest X = ImageDigest.of("sha256:" + "1".repeat(64));
    private static final ImageDigest Y = ImageDigest.of("sha256:" + "2".repeat(64));

    @TempDir
    Path dir;

    Fleet fleet;
    Router router;

    @BeforeEach
    void start() {
        fleet = new Fleet(dir);
        router = fleet.router(new FirstCome(), RouterSettings.defaults("router"), Clock.systemUTC());
    }

    @AfterEach
    void stop() throws Exception {
        fleet.close();
    }

    private RawRunner behind(String name) {
        RawRunner r =
                new RawRunner(Fleet.url(router), name, fleet.runnerKey(name).reveal());
        r.expect(ServerMessage.Welcome.class);
        return r;
    }

    private static RunnerMessage.Ready ready(Map<String, String> labels, List<ImageDigest> images) {
        return new RunnerMessage.Ready(300, "linux", "x86_64", "test", 1, null, null, null, labels, images);
    }

    private JsonNode routerRunner() {
        return fleet.server.get("/v0/runners/" + fleet.routerSlug);
    }

    @Test
    void aJobThatRequiresLabelsReachesTheLabelledRunnerBehindTheRouter() {
        RawRunner nvme = behind("nvme");
        nvme.send(ready(Map.of("disk", "nvme", "zone", "a"), null));
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        "nvme".equals(routerRunner().at("/labels_reported/disk").asText()));

        String job = fleet.submit("alpha", List.of("true"), Map.of("require_labels", Map.of("disk", "nvme")));
        assertThat(nvme.expectSkippingAcks(ServerMessage.Job.class).job().uuid().toString())
                .isEqualTo(job);

        // Only a plain runner waits now: the router advertises no labels, and the job that
        // requires them waits instead of going to a runner that lacks them.
        RawRunner plain = behind("plain");
        plain.send(ready(Map.of("zone", "a"), null));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> routerRunner().at("/labels_reported/disk").isMissingNode()
                        && "a".equals(routerRunner().at("/labels_reported/zone").asText()));
        String waits = fleet.submit("alpha", List.of("true"), Map.of("require_labels", Map.of("disk", "nvme")));
        String runs = fleet.submit("alpha", List.of("true"), Map.of("require_labels", Map.of("zone", "a")));
        assertThat(plain.expectSkippingAcks(ServerMessage.Job.class)
                        .job()
                        .uuid()
                        .toString())
                .isEqualTo(runs);
        assertThat(fleet.job("alpha", waits).get("status").asText()).isEqualTo("pending");
        nvme.close();
        plain.close();
    }

    @Test
    void theImagesOfTheWaitingRunnersGoUpstreamInTheRoutersReady() {
        RawRunner a = behind("a");
        RawRunner b = behind("b");
        a.send(ready(null, List.of(X)));
        b.send(ready(null, List.of(Y)));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode images = fleet.server
                    .get("/v0/runners/" + fleet.routerSlug + "/capabilities")
                    .get("images");
            assertThat(images).isNotNull();
            assertThat(images.toString()).contains(X.value()).contains(Y.value());
        });
        // A waiting runner's heartbeat reports another cache: the router's next ready says so.
        a.send(new RunnerMessage.Heartbeat(null, null, List.of()));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(fleet.server
                                .get("/v0/runners/" + fleet.routerSlug + "/capabilities")
                                .get("images")
                                .toString())
                        .doesNotContain(X.value())
                        .contains(Y.value()));
        a.close();
        b.close();
    }

    @Test
    void labelsAreTheCommonOnesAndImagesTheUnionBoundedAndAJobIsOfferedToARunnerThatHoldsItsImageFirst() {
        Downstream a = new Downstream("a", java.util.Set.of("host"));
        Downstream b = new Downstream("b", java.util.Set.of("host"));
        a.labels = Map.of("zone", "a", "disk", "nvme");
        b.labels = Map.of("zone", "a");
        a.images = List.of(X);
        b.images = List.of(Y);
        assertThat(UpstreamView.labels(List.of(a, b))).isEqualTo(Map.of("zone", "a"));
        assertThat(UpstreamView.images(List.of(a, b))).containsExactly(X, Y);
        b.images = null;
        assertThat(UpstreamView.images(List.of(b))).isNull();
        java.util.List<ImageDigest> many = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) many.add(ImageDigest.of(String.format("sha256:%064x", i)));
        b.images = many;
        assertThat(UpstreamView.images(List.of(a, b)))
                .hasSize(dev.baton.protocol.message.HeldImages.MAX)
                .startsWith(X, many.get(0));

        var claimed = new dev.baton.protocol.model.ClaimedJob(
                dev.baton.protocol.id.JobUuid.random(),
                dev.baton.protocol.id.LeaseId.random(),
                1,
                null,
                new dev.baton.protocol.model.JobConfig("r", null, X, null, null, null, null, null, 1),
                null,
                60,
                null);
        HeldJob job =
                new HeldJob(claimed.uuid(), claimed.lease(), claimed, HeldJob.State.QUEUED, java.time.Instant.now());
        b.images = List.of(Y);
        assertThat(UpstreamView.warmFirst(List.of(b, a), job)).containsExactly(a, b);
    }
}
