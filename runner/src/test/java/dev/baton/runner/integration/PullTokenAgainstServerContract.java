package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.connection.ChannelClient;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.connection.PullTokenRequests;
import dev.baton.runner.oci.BlobSource;
import dev.baton.runner.oci.ImagePuller;
import dev.baton.runner.oci.PullCredentials;
import dev.baton.runner.oci.PullDeniedException;
import dev.baton.runner.oci.RegistryBlobSource;
import dev.baton.runner.testing.TestImages;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's registry pull token (issue 41) against the real server, through the runner's own
 * channel client and image pull code: a pull that outlives the token asks for a fresh one over the
 * channel and goes on; the token reaches only its job's image; it is refused once the job has
 * ended; the pull is audited once with the runner and the job.
 */
abstract class PullTokenAgainstServerContract {
    static final Duration TTL = Duration.ofMinutes(5);
    static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    /** Null for the SQLite file, or a fresh PostgreSQL schema. */
    abstract String databaseUrl();

    final BlockingQueue<Input> inputs = new LinkedBlockingQueue<>();
    final HttpClient http =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build();

    @Test
    void aPullOutlivingItsTokenGoesOnAndTheTokenPullsOnlyItsJobsImageWhileTheJobLives() throws Exception {
        var clock = new LeaseRunnerContract.ShiftedClock();
        // Long acceptance and heartbeat timeouts: the test moves the server's clock past the token's life only.
        try (BatonUnderTest baton = new BatonUnderTest(
                dir.resolve("server"),
                databaseUrl(),
                b -> b.pullTokenTtl(TTL).acceptanceTimeout(Duration.ofHours(2)).heartbeatTimeout(Duration.ofHours(2)),
                clock)) {
            baton.post("/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"));
            JsonNode bench =
                    baton.post("/v0/projects", Map.of("name", "Bench", "slug", "bench", "organization", "acme"));
            JsonNode other =
                    baton.post("/v0/projects", Map.of("name", "Other", "slug", "other", "organization", "acme"));
            baton.spec("x86", "x86_64");
            BatonUnderTest.Registered created = baton.runner("puller", "x86");
            String slug = created.slug();

            TestImages.Image image = TestImages.write(
                    dir.resolve("a"), List.of("bench"), List.of(bytes("first layer"), bytes("second layer")));
            TestImages.Image sibling =
                    TestImages.write(dir.resolve("b"), List.of("other"), List.of(bytes("sibling layer")));
            TestImages.Image elsewhere =
                    TestImages.write(dir.resolve("c"), List.of("else"), List.of(bytes("other project's layer")));
            baton.pushImage(image, "bench/a", "v1");
            baton.pushImage(sibling, "bench/b", "v1");
            baton.pushImage(elsewhere, "other/c", "v1");
            String job = baton.post(
                            "/v0/run",
                            Map.of(
                                    "project",
                                    "bench",
                                    "spec",
                                    "x86",
                                    "image",
                                    image.digest().value(),
                                    "timeout",
                                    600,
                                    "adapter",
                                    "json"))
                    .at("/job/uuid")
                    .asText();

            RunnerKey key = created.key();
            ChannelClient channel = new ChannelClient(http, baton.url(), slug, key, 1 << 20, inputs::add, clock);
            PullTokenRequests pullTokens = new PullTokenRequests();
            pullTokens.sendWith(channel::send);
            channel.tap(pullTokens::answer);
            channel.connect();
            next(Input.ConnectionOpened.class);
            channel.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            ClaimedJob claimed = received(ServerMessage.Job.class).job();
            assertThat(claimed.uuid().toString()).isEqualTo(job);

            // The pull takes longer than the token lives: after the manifest, the server's clock passes its expiry.
            PullCredentials credentials = pullTokens.credentials(claimed.uuid(), claimed.lease(), claimed.ociToken());
            String registryUrl = claimed.config().registry();
            String repository = claimed.config().project().toString();
            RegistryBlobSource registry = new RegistryBlobSource(http, registryUrl, repository, credentials);
            BlobSource slowLink = new BlobSource() {
                @Override
                public InputStream manifest(String digest) throws IOException, PullDeniedException {
                    InputStream manifest = registry.manifest(digest);
                    clock.shift(TTL.plusSeconds(1));
                    return manifest;
                }

                @Override
                public InputStream blob(String digest) throws IOException, PullDeniedException {
                    return registry.blob(digest);
                }
            };
            ImagePuller.PulledImage pulled = new ImagePuller(dir.resolve("cache"), Architecture.X86_64)
                    .pull(slowLink, claimed.config().digest(), progress -> {});
            assertThat(pulled.layers())
                    .extracting(ImagePuller.Layer::digest)
                    .containsExactlyElementsOf(image.layerDigests());
            String fresh = credentials.current();
            assertThat(fresh).as("refreshed over the channel").isNotEqualTo(claimed.ociToken());
            assertThat(pullsWith(claimed.ociToken(), claimed, bench, image))
                    .as("the claim's token expired")
                    .isFalse();

            // The job's token reaches its own image only: not another image of its project, nor another project's.
            assertThat(pullsWith(fresh, claimed, bench, image)).isTrue();
            assertThat(pullsWith(fresh, claimed, bench, sibling)).isFalse();
            assertThat(pullsWith(fresh, claimed, other, elsewhere)).isFalse();
            RegistryBlobSource fixed = new RegistryBlobSource(http, registryUrl, repository, fresh);
            assertThatThrownBy(() -> fixed.blob(sibling.layerDigests().getFirst()))
                    .isInstanceOf(PullDeniedException.class);

            // One audit entry for the pull (and for the refetch of the same attempt), not one per blob.
            List<JsonNode> pulls = new ArrayList<>();
            for (JsonNode event : baton.get("/v0/audit").path("events")) {
                if (event.path("action").asText().equals("image.pulled")) pulls.add(event);
            }
            assertThat(pulls).hasSize(1);
            assertThat(pulls.getFirst().path("target").asText()).isEqualTo("/v0/jobs/" + job);
            assertThat(pulls.getFirst().path("actor").asText()).startsWith("runner:");
            assertThat(pulls.getFirst().path("detail").asText())
                    .contains(job, image.digest().value(), "\"attempt\":1");

            // The job ends: its tokens are refused at once, and a refresh is answered stale.
            channel.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
            received(ServerMessage.Ack.class);
            channel.send(new RunnerMessage.Completed(
                    claimed.uuid(), claimed.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
            received(ServerMessage.Ack.class);
            assertThat(pullsWith(fresh, claimed, bench, image)).isFalse();
            assertThat(pullTokens.ask(claimed.uuid(), claimed.lease(), WAIT)).isEmpty();
            RegistryBlobSource afterwards = new RegistryBlobSource(
                    http, registryUrl, repository, pullTokens.credentials(claimed.uuid(), claimed.lease(), fresh));
            assertThatThrownBy(() -> afterwards.manifest(image.digest().value()))
                    .isInstanceOf(PullDeniedException.class);
            channel.close();
        }
    }

    @Test
    void aPairedJobsTokenPullsItsBaselineImageTooAndNothingElse() throws Exception {
        // Issue 45: a baseline of its own image is prepared under the job's lease, with the job's token.
        try (BatonUnderTest baton = new BatonUnderTest(dir.resolve("server"), databaseUrl())) {
            baton.post("/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"));
            JsonNode bench =
                    baton.post("/v0/projects", Map.of("name", "Bench", "slug", "bench", "organization", "acme"));
            JsonNode other =
                    baton.post("/v0/projects", Map.of("name", "Other", "slug", "other", "organization", "acme"));
            baton.spec("x86", "x86_64");
            BatonUnderTest.Registered created = baton.runner("puller", "x86");
            String slug = created.slug();
            TestImages.Image image =
                    TestImages.write(dir.resolve("a"), List.of("bench"), List.of(bytes("candidate layer")));
            TestImages.Image baseline =
                    TestImages.write(dir.resolve("b"), List.of("bench"), List.of(bytes("baseline layer")));
            TestImages.Image sibling =
                    TestImages.write(dir.resolve("c"), List.of("other"), List.of(bytes("sibling layer")));
            TestImages.Image elsewhere =
                    TestImages.write(dir.resolve("d"), List.of("else"), List.of(bytes("other project's layer")));
            baton.pushImage(image, "bench/a", "v2");
            baton.pushImage(baseline, "bench/a", "v1");
            baton.pushImage(sibling, "bench/c", "v1");
            baton.pushImage(elsewhere, "other/d", "v1");
            baton.post(
                    "/v0/run",
                    Map.of(
                            "project",
                            "bench",
                            "spec",
                            "x86",
                            "image",
                            image.digest().value(),
                            "baseline",
                            Map.of("image", "a:v1")));

            RunnerKey key = created.key();
            ChannelClient channel =
                    new ChannelClient(http, baton.url(), slug, key, 1 << 20, inputs::add, java.time.Clock.systemUTC());
            channel.connect();
            next(Input.ConnectionOpened.class);
            // As a runc runner says it (decision 0076): only such a runner is offered the job.
            channel.send(RuncReady.ready());
            ClaimedJob claimed = received(ServerMessage.Job.class).job();
            assertThat(claimed.config().paired().baselineImage()).isEqualTo(baseline.digest());

            String token = claimed.ociToken();
            RegistryBlobSource registry = new RegistryBlobSource(
                    http,
                    claimed.config().registry(),
                    claimed.config().project().toString(),
                    token);
            ImagePuller.PulledImage pulled = new ImagePuller(dir.resolve("cache"), Architecture.X86_64)
                    .pull(registry, baseline.digest(), progress -> {});
            assertThat(pulled.layers())
                    .extracting(ImagePuller.Layer::digest)
                    .containsExactlyElementsOf(baseline.layerDigests());
            assertThat(pullsWith(token, claimed, bench, image)).isTrue();
            assertThat(pullsWith(token, claimed, bench, sibling)).isFalse();
            assertThat(pullsWith(token, claimed, other, elsewhere)).isFalse();
            assertThatThrownBy(() -> registry.blob(sibling.layerDigests().getFirst()))
                    .isInstanceOf(PullDeniedException.class);

            // Each image's pull is audited once.
            List<String> audited = new ArrayList<>();
            for (JsonNode event : baton.get("/v0/audit").path("events")) {
                if (event.path("action").asText().equals("image.pulled"))
                    audited.add(event.path("detail").asText());
            }
            assertThat(audited).hasSize(2);
            assertThat(String.join(" ", audited))
                    .contains(image.digest().value(), baseline.digest().value());
            channel.close();
        }
    }

    /** True when {@code token} fetches {@code image}'s manifest from {@code project}'s repository. */
    private boolean pullsWith(String token, ClaimedJob claimed, JsonNode project, TestImages.Image image)
            throws IOException {
        String repository = project.get("uuid").asText();
        RegistryBlobSource source =
                new RegistryBlobSource(http, claimed.config().registry(), repository, token);
        try (InputStream in = source.manifest(image.digest().value())) {
            return in.readAllBytes().length > 0;
        } catch (PullDeniedException e) {
            return false;
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private <T extends Input> T next(Class<T> type) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            Input input = inputs.poll(100, TimeUnit.MILLISECONDS);
            if (type.isInstance(input)) return type.cast(input);
        }
        throw new AssertionError("no " + type.getSimpleName() + " within " + WAIT);
    }

    private <T extends ServerMessage> T received(Class<T> type) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            Input input = inputs.poll(100, TimeUnit.MILLISECONDS);
            if (input instanceof Input.Received r && type.isInstance(r.message())) return type.cast(r.message());
        }
        throw new AssertionError("no " + type.getSimpleName() + " within " + WAIT);
    }
}
