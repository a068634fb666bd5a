package dev.baton.server.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.core.config.BlobSettings;
import dev.baton.store.blob.S3Bucket;
import dev.baton.store.blob.S3Location;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real S3-compatible server for tests: the npm package {@code s3rver}, started on 127.0.0.1 and
 * an ephemeral port with one bucket. It stands in for AWS S3 or MinIO (same REST API, same SDK
 * calls; what it does not check, such as the 5 MiB minimum of multipart parts, Baton keeps to on
 * its own). Found at {@code $BATON_TEST_S3RVER} (the s3rver script, or the directory it was
 * installed into with npm) or {@code ~/.cache/baton-test/s3rver}; {@code .ci/run} installs it.
 * Absent, the tests that need it are skipped with a message saying how to install it; with
 * {@code CI=true} they fail instead.
 */
public final class S3rver implements AutoCloseable {
    public static final String BUCKET = "baton";
    /** s3rver's fixed credentials. */
    public static final String ACCESS_KEY = "S3RVER";

    public static final String SECRET_KEY = "S3RVER";
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");

    private final Process process;
    private final Path data;
    public final URI endpoint;

    private S3rver(Process process, Path data, int port) {
        this.process = process;
        this.data = data;
        this.endpoint = URI.create("http://127.0.0.1:" + port);
    }

    /** Starts s3rver, or skips the calling test (fails it under CI) when it is not installed. */
    public static S3rver start() throws IOException, InterruptedException {
        Path script = locate();
        String missing =
                "s3rver (the S3 stand-in) is not installed: npm install --prefix ~/.cache/baton-test/s3rver s3rver,"
                        + " or set BATON_TEST_S3RVER; skipping the S3 blob store tests";
        if (script == null && "true".equals(System.getenv("CI")))
            throw new IllegalStateException(missing + " although CI=true");
        assumeTrue(script != null, missing);
        Path data = Files.createTempDirectory("baton-s3rver-");
        ProcessBuilder builder = new ProcessBuilder(
                        script.toString(),
                        "-d",
                        data.toString(),
                        "-a",
                        "127.0.0.1",
                        "-p",
                        "0",
                        "--configure-bucket",
                        BUCKET,
                        "--no-vhost-buckets")
                .redirectErrorStream(true);
        // s3rver makes list continuation tokens with a cipher that OpenSSL 3 (Node 17+) keeps in its legacy provider.
        builder.environment().put("NODE_OPTIONS", "--openssl-legacy-provider");
        Process process = builder.start();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) return Integer.parseInt(m.group(1));
                }
                return -1;
            } catch (IOException e) {
                return -1;
            }
        });
        int p;
        try {
            p = port.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            p = -1;
        }
        if (p < 0) {
            process.destroyForcibly();
            throw new IllegalStateException("s3rver at " + script + " did not start");
        }
        // Keep draining its log so that it never blocks on a full pipe.
        Thread.ofVirtual().start(() -> {
            try {
                while (out.readLine() != null) {
                    // discard
                }
            } catch (IOException e) {
                // it stopped
            }
        });
        return new S3rver(process, data, p);
    }

    private static Path locate() {
        String configured = System.getenv("BATON_TEST_S3RVER");
        Path base = configured != null
                ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "baton-test", "s3rver");
        for (Path candidate : new Path[] {base, base.resolve("node_modules/.bin/s3rver")}) {
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) return candidate;
        }
        return null;
    }

    /** The bucket under a fresh key prefix, so tests sharing one server never see each other's objects. */
    public S3Location freshLocation() {
        return new S3Location(
                endpoint,
                BlobSettings.DEFAULT_REGION,
                BUCKET,
                "t-" + UUID.randomUUID() + "/",
                ACCESS_KEY,
                SECRET_KEY,
                true);
    }

    public S3Bucket bucket(S3Location location) {
        return S3Bucket.connect(location, S3Bucket.MIN_PART_SIZE);
    }

    /** Server settings for the bucket under {@code location}'s prefix. */
    public static BlobSettings settings(S3Location location) {
        return new BlobSettings(
                BlobSettings.Kind.S3,
                null,
                location.endpoint().toString(),
                location.region(),
                location.bucket(),
                location.prefix(),
                location.accessKeyId(),
                location.secretAccessKey(),
                true,
                S3Bucket.MIN_PART_SIZE);
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(data)) {
            files.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }
}
