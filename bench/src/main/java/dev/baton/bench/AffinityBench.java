package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.RuncExecutor;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.oci.RegistryBlobSource;
import dev.baton.runner.update.Updater;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Image affinity, measured (issue 19; docs/benchmarks.md "Image affinity"): a real server, four
 * real runner agents with the runc executor (root and runc required) and three images of
 * realistic size pushed into the server's own registry with skopeo. The same job stream runs
 * once with {@code image_affinity} off and once on, each on a fresh server with empty runner
 * caches; per job it reads the attempt's claim and start times and whether the claim was warm.
 *
 * <p>The stream: {@code waves} waves of {@code perWave} jobs submitted together (fewer jobs than
 * runners, so the dispatcher has a choice), each wave waiting for its jobs to finish; images are
 * drawn from a seeded generator, the same sequence in both runs.
 */
final class AffinityBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int RUNNERS = 4;
    private static final int IMAGES = 3;
    private static final String SPEC = "affinity";

    record Options(int waves, int perWave, int payloadMib, Path out) {
        static Options parse(String[] args) {
            int waves = 12, perWave = 2, payload = 40;
            Path out = Path.of("bench-results");
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--waves" -> waves = Integer.parseInt(v);
                    case "--per-wave" -> perWave = Integer.parseInt(v);
                    case "--payload-mib" -> payload = Integer.parseInt(v);
                    case "--out" -> out = Path.of(v);
                    default ->
                        throw new IllegalArgumentException("unknown option " + args[i]
                                + " (bench affinity [--waves N] [--per-wave N] [--payload-mib N] [--out DIR])");
                }
                i++;
            }
            if (waves < 1 || perWave < 1 || perWave > RUNNERS || payload < 1)
                throw new IllegalArgumentException("bad options");
            return new Options(waves, perWave, payload, out);
        }
    }

    /** One job: its image (index), who ran it, whether the claim was warm, and claim → running. */
    record JobTiming(int image, String runner, Boolean warm, long claimToRunningMicros) {}

    record ModeResult(
            boolean affinity,
            int jobs,
            long warmClaims,
            Summary claimToRunning,
            Summary warm,
            Summary cold,
            double meanMs,
            double wallSeconds,
            List<JobTiming> timings) {}

    static Path run(String[] args) throws Exception {
        Options o = Options.parse(args);
        Optional<String> runc = RuncExecutor.unavailableReason("runc");
        if (runc.isPresent())
            throw new IllegalStateException("the affinity benchmark needs runc as root: " + runc.get());
        Path work = Files.createTempDirectory(Path.of("/tmp"), "baton-affinity-");
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("started", Instant.now().toString());
        json.put(
                "options",
                Map.of(
                        "runners",
                        RUNNERS,
                        "images",
                        IMAGES,
                        "waves",
                        o.waves(),
                        "per_wave",
                        o.perWave(),
                        "payload_mib",
                        o.payloadMib()));
        json.put("load_average_at_start", ResourceUse.currentLoadAverage());
        json.put(
                "machine",
                Map.of(
                        "cores",
                        Runtime.getRuntime().availableProcessors(),
                        "java",
                        System.getProperty("java.version"),
                        "os",
                        System.getProperty("os.name") + " " + System.getProperty("os.version")));
        try {
            List<Path> layouts = new ArrayList<>();
            for (int i = 0; i < IMAGES; i++) layouts.add(image(work.resolve("image-" + i), i, o.payloadMib()));
            List<Integer> sequence = new ArrayList<>();
            Random random = new Random(19);
            for (int i = 0; i < o.waves() * o.perWave(); i++) sequence.add(random.nextInt(IMAGES));
            List<ModeResult> results = new ArrayList<>();
            for (boolean affinity : List.of(false, true)) {
                Bench.log("image affinity " + (affinity ? "on" : "off") + ": " + sequence.size() + " jobs");
                results.add(runMode(work.resolve(affinity ? "on" : "off"), affinity, layouts, sequence, o));
            }
            json.put("results", results);
            json.put("load_average_at_end", ResourceUse.currentLoadAverage());
            List<String[]> table = new ArrayList<>();
            for (ModeResult r : results) {
                String mode = "affinity " + (r.affinity() ? "on " : "off");
                table.add(Bench.row(
                        mode + ": claim→running, all " + r.jobs() + " jobs",
                        Bench.summary(r.claimToRunning()) + ", mean " + r.meanMs() + " ms"));
                table.add(Bench.row(
                        mode + ":   warm claims " + r.warmClaims() + "/" + r.jobs(), Bench.summary(r.warm())));
                table.add(Bench.row(
                        mode + ":   cold claims " + (r.jobs() - r.warmClaims()) + "/" + r.jobs(),
                        Bench.summary(r.cold())));
                table.add(Bench.row(mode + ":   wall time", r.wallSeconds() + " s"));
            }
            Bench.printTable(table);
            Files.createDirectories(o.out());
            String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                    .withZone(ZoneOffset.UTC)
                    .format(Instant.now());
            Path file = o.out().resolve("affinity-" + stamp + ".json");
            Files.writeString(
                    file, Wire.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
            return file;
        } finally {
            Bench.deleteQuietly(work);
        }
    }

    private static ModeResult runMode(Path dir, boolean affinity, List<Path> layouts, List<Integer> sequence, Options o)
            throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        List<RunnerAgent> agents = new ArrayList<>();
        try (BenchServer server = BenchServer.start(dir.resolve("server"), null, affinity)) {
            String host = Architecture.ofHost().orElseThrow().wireName();
            server.post(
                    "/v0/specs",
                    Map.of(
                            "name",
                            SPEC,
                            "slug",
                            SPEC,
                            "architecture",
                            host,
                            "cpu",
                            1,
                            "memory",
                            256 << 20,
                            "disk",
                            1L << 30));
            List<String> digests = new ArrayList<>();
            for (int i = 0; i < layouts.size(); i++) digests.add(push(server, layouts.get(i), "img" + i));
            HttpClient http = HttpClient.newHttpClient();
            List<String> slugs = new ArrayList<>();
            for (int i = 0; i < RUNNERS; i++) {
                BenchServer.Credentials c = server.createRunner("runc-" + i, SPEC);
                slugs.add(c.slug());
                Path runnerDir = dir.resolve("runner-" + i);
                var executor = new RuncExecutor(
                        new RuncExecutor.Options(
                                "runc",
                                runnerDir.resolve("work"),
                                Architecture.ofHost().orElseThrow(),
                                false,
                                100_000,
                                256,
                                Optional.empty(),
                                OutputLimits.DEFAULT,
                                job -> new RegistryBlobSource(
                                        http,
                                        job.config().registry() == null
                                                ? server.url().toString()
                                                : job.config().registry(),
                                        job.config().project().toString(),
                                        job.ociToken())),
                        Clock.systemUTC());
                RunnerAgent agent = new RunnerAgent(
                        MachineConfig.defaults("bench").withPollTimeout(60),
                        new RunnerAgent.Target(server.url(), c.slug(), RunnerKey.parse(c.key())),
                        executor,
                        new Outbox(runnerDir.resolve("outbox")),
                        Updater.unsupported("bench"),
                        Clock.systemUTC(),
                        Duration.ofMillis(500),
                        runnerDir);
                agents.add(agent);
                threads.submit(agent::run);
            }
            awaitConnected(server, slugs);
            List<String> jobs = new ArrayList<>();
            List<Integer> images = new ArrayList<>();
            long start = System.nanoTime();
            for (int w = 0; w < o.waves(); w++) {
                List<String> wave = new ArrayList<>();
                for (int j = 0; j < o.perWave(); j++) {
                    int image = sequence.get(w * o.perWave() + j);
                    String uuid = server.post(
                                    "/v0/run",
                                    Map.of(
                                            "project",
                                            BenchServer.PROJECT,
                                            "spec",
                                            SPEC,
                                            "image",
                                            digests.get(image),
                                            "cmd",
                                            List.of("true"),
                                            "timeout",
                                            600,
                                            "adapter",
                                            "raw"))
                            .at("/job/uuid")
                            .asText();
                    wave.add(uuid);
                    images.add(image);
                }
                for (String uuid : wave) awaitEnded(server, uuid);
                jobs.addAll(wave);
            }
            double wall = Math.round((System.nanoTime() - start) / 1e7) / 100.0;
            List<JobTiming> timings = new ArrayList<>();
            for (int i = 0; i < jobs.size(); i++) {
                JsonNode job = server.get("/v0/projects/" + BenchServer.PROJECT + "/jobs/" + jobs.get(i));
                JsonNode attempts = job.get("attempts");
                JsonNode last = attempts.get(attempts.size() - 1);
                if (last.path("started").isMissingNode() || last.get("started").isNull()) {
                    throw new IllegalStateException("job " + jobs.get(i) + " never started: " + job);
                }
                long micros = Duration.between(
                                        Instant.parse(last.get("claimed").asText()),
                                        Instant.parse(last.get("started").asText()))
                                .toNanos()
                        / 1000;
                Boolean warm = last.path("warm").isBoolean() ? last.get("warm").asBoolean() : null;
                timings.add(new JobTiming(images.get(i), last.get("runner").asText(), warm, micros));
            }
            return summarize(affinity, timings, wall);
        } finally {
            agents.forEach(a -> a.signal(Input.Signal.TERMINATE));
            threads.shutdown();
            if (!threads.awaitTermination(30, TimeUnit.SECONDS)) threads.shutdownNow();
        }
    }

    private static ModeResult summarize(boolean affinity, List<JobTiming> timings, double wall) {
        long[] all =
                timings.stream().mapToLong(t -> t.claimToRunningMicros() * 1000).toArray();
        long[] warm = timings.stream()
                .filter(t -> Boolean.TRUE.equals(t.warm()))
                .mapToLong(t -> t.claimToRunningMicros() * 1000)
                .toArray();
        long[] cold = timings.stream()
                .filter(t -> !Boolean.TRUE.equals(t.warm()))
                .mapToLong(t -> t.claimToRunningMicros() * 1000)
                .toArray();
        double mean = Math.round(java.util.Arrays.stream(all).average().orElse(0) / 1000.0) / 1000.0;
        return new ModeResult(
                affinity,
                timings.size(),
                warm.length,
                Summary.ofNanos(all),
                Summary.ofNanos(warm),
                Summary.ofNanos(cold),
                mean,
                wall,
                timings);
    }

    /** Until every runner has an open channel and has said ready (its capabilities are known then). */
    private static void awaitConnected(BenchServer server, List<String> slugs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            int connected = 0;
            for (String slug : slugs) {
                try {
                    if (!server.get("/v0/runners/" + slug + "/capabilities")
                            .path("capabilities")
                            .isNull()) connected++;
                } catch (IllegalStateException notYet) {
                    // 409 runner_not_connected
                }
            }
            if (connected == slugs.size()) return;
            Thread.sleep(200); // polling the API for the fleet to come up; not part of any measurement
        }
        throw new IllegalStateException("the runners did not connect within 60 s");
    }

    private static void awaitEnded(BenchServer server, String uuid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (System.nanoTime() < deadline) {
            String status = server.get("/v0/projects/" + BenchServer.PROJECT + "/jobs/" + uuid)
                    .get("status")
                    .asText();
            if (status.equals("processed")
                    || status.equals("failed")
                    || status.equals("canceled")
                    || status.equals("completed")) {
                if (!status.equals("processed") && !status.equals("completed"))
                    throw new IllegalStateException("job " + uuid + " ended " + status);
                return;
            }
            Thread.sleep(50); // waiting for the wave to end; the measured times are the server's own claim/start stamps
        }
        throw new IllegalStateException("job " + uuid + " did not end within 300 s");
    }

    /** Pushes an OCI layout into the server's registry with skopeo (the admin token as password); returns its digest. */
    private static String push(BenchServer server, Path layout, String name) throws IOException, InterruptedException {
        String target = "docker://" + server.url().getAuthority() + "/" + BenchServer.PROJECT + "/" + name + ":v1";
        Process p = new ProcessBuilder(
                        "skopeo",
                        "copy",
                        "--quiet",
                        "--dest-tls-verify=false",
                        "--dest-creds",
                        "bench:" + server.adminToken(),
                        "oci:" + layout,
                        target)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new IllegalStateException("skopeo copy failed: " + out);
        return "sha256:" + sha256(Files.readAllBytes(layout.resolve("manifest.json")));
    }

    /**
     * An OCI layout: busybox (the host's static one) as the first layer, then a payload layer of
     * {@code payloadMib} files of 1 MiB of pseudo-random bytes (incompressible, as binaries and
     * jars mostly are), gzip-compressed like images from a registry.
     */
    static Path image(Path layout, int index, int payloadMib) throws IOException {
        Files.createDirectories(layout.resolve("blobs/sha256"));
        byte[] base = tarGz(tar -> {
            dir(tar, "bin/");
            file(tar, "bin/busybox", Files.readAllBytes(Path.of("/bin/busybox")), 0755);
            for (String applet : List.of("sh", "true", "echo", "cat")) {
                TarArchiveEntry e = new TarArchiveEntry("bin/" + applet, TarArchiveEntry.LF_SYMLINK);
                e.setLinkName("busybox");
                tar.putArchiveEntry(e);
                tar.closeArchiveEntry();
            }
            dir(tar, "tmp/");
            dir(tar, "work/");
        });
        Random random = new Random(1000 + index);
        byte[] payload = tarGz(tar -> {
            dir(tar, "opt/");
            dir(tar, "opt/app" + index + "/");
            byte[] chunk = new byte[1 << 20];
            for (int i = 0; i < payloadMib; i++) {
                random.nextBytes(chunk);
                file(tar, "opt/app" + index + "/part-" + i + ".bin", chunk, 0644);
            }
        });
        ObjectNode config = JSON.createObjectNode();
        config.put("architecture", "amd64").put("os", "linux");
        config.putObject("config").putArray("Env").add("PATH=/bin");
        config.putObject("rootfs").put("type", "layers").putArray("diff_ids");
        byte[] configBytes = JSON.writeValueAsBytes(config);
        ObjectNode manifest = JSON.createObjectNode();
        manifest.put("schemaVersion", 2).put("mediaType", "application/vnd.oci.image.manifest.v1+json");
        manifest.putObject("config")
                .put("mediaType", "application/vnd.oci.image.config.v1+json")
                .put("digest", blob(layout, configBytes))
                .put("size", configBytes.length);
        var layers = manifest.putArray("layers");
        for (byte[] layer : List.of(base, payload)) {
            layers.addObject()
                    .put("mediaType", "application/vnd.oci.image.layer.v1.tar+gzip")
                    .put("digest", blob(layout, layer))
                    .put("size", layer.length);
        }
        byte[] manifestBytes = JSON.writeValueAsBytes(manifest);
        String manifestDigest = blob(layout, manifestBytes);
        Files.write(layout.resolve("manifest.json"), manifestBytes);
        ObjectNode top = JSON.createObjectNode();
        top.put("schemaVersion", 2);
        top.putArray("manifests")
                .addObject()
                .put("mediaType", "application/vnd.oci.image.manifest.v1+json")
                .put("digest", manifestDigest)
                .put("size", manifestBytes.length);
        Files.write(layout.resolve("index.json"), JSON.writeValueAsBytes(top));
        Files.writeString(layout.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        return layout;
    }

    private interface TarBody {
        void write(TarArchiveOutputStream tar) throws IOException;
    }

    private static byte[] tarGz(TarBody body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes, 1 << 16);
                TarArchiveOutputStream tar = new TarArchiveOutputStream(gz)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            body.write(tar);
        }
        return bytes.toByteArray();
    }

    private static void dir(TarArchiveOutputStream tar, String name) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setMode(040755);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
    }

    private static void file(TarArchiveOutputStream tar, String name, byte[] content, int mode) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(content.length);
        e.setMode(0100000 | mode);
        tar.putArchiveEntry(e);
        tar.write(content);
        tar.closeArchiveEntry();
    }

    private static String blob(Path layout, byte[] bytes) throws IOException {
        String hex = sha256(bytes);
        Files.write(layout.resolve("blobs/sha256").resolve(hex), bytes);
        return "sha256:" + hex;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
