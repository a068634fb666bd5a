package dev.baton.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    @Test
    void defaultsWhenNothingIsGiven() {
        ServerConfig c = ConfigLoader.load(null, Map.of(), Map.of("data_dir", dir.toString()));
        ServerConfig d = ServerConfig.defaults(dir);
        assertThat(c).isEqualTo(d);
        assertThat(ConfigLoader.load(null, Map.of(), Map.of()).dataDir()).isEqualTo(Path.of("data"));
    }

    @Test
    void fileThenEnvThenFlagsEachOverride() throws Exception {
        Path file = dir.resolve("baton.json");
        Files.writeString(file, """
                {"host": "0.0.0.0", "port": 8000, "heartbeat_timeout": "45s", "max_requeues": 7, "request_body_max_bytes": "1MiB"}
                """);
        Map<String, String> env = Map.of("BATON_PORT", "8001", "BATON_HEARTBEAT_TIMEOUT", "2m", "BATON_UNRELATED", "x");
        Map<String, String> flags = Map.of("port", "8002");
        ServerConfig c = ConfigLoader.load(file, env, flags);
        assertThat(c.host()).isEqualTo("0.0.0.0");
        assertThat(c.port()).isEqualTo(8002);
        assertThat(c.heartbeatTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.maxRequeues()).isEqualTo(7);
        assertThat(c.requestBodyMaxBytes()).isEqualTo(1024 * 1024);
    }

    @Test
    void theFileInTheDataDirIsReadWhenNoneIsNamed() throws Exception {
        Files.writeString(dir.resolve("baton.json"), "{\"public_url\": \"https://baton.example.com/\"}");
        ServerConfig c = ConfigLoader.load(null, Map.of("BATON_DATA_DIR", dir.toString()), Map.of());
        assertThat(c.publicUrl()).isEqualTo("https://baton.example.com");
        assertThat(c.dataDir()).isEqualTo(dir);
    }

    @Test
    void trustedProxiesAreAListInTheFileOrCommaSeparatedAndOffByDefault() throws Exception {
        assertThat(ServerConfig.defaults(dir).edge().trustedProxies()).isEmpty();
        Files.writeString(dir.resolve("baton.json"), "{\"trusted_proxies\": [\"10.0.0.0/8\", \"::1\"]}");
        ServerConfig c = ConfigLoader.load(null, Map.of("BATON_DATA_DIR", dir.toString()), Map.of());
        assertThat(c.edge().trustedProxies()).containsExactly(Cidr.parse("10.0.0.0/8"), Cidr.parse("::1/128"));
        assertThat(Cidr.parse("10.1.2.3/8")).as("host bits cleared").isEqualTo(Cidr.parse("10.0.0.0/8"));
        assertThat(ConfigLoader.load(null, Map.of("BATON_TRUSTED_PROXIES", "off"), Map.of())
                        .edge()
                        .trustedProxies())
                .isEmpty();
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("BATON_TRUSTED_PROXIES", "10.0.0.0/33"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("BATON_TRUSTED_PROXIES")
                .hasMessageContaining("/33");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("trusted_proxies", "proxy.internal")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--trusted-proxies")
                .hasMessageContaining("not an IP address");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("runner_connect_burst", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--runner-connect-burst");
    }

    @Test
    void everyKeyCanBeSetByFlag() {
        Map<String, String> flags = new HashMap<>();
        flags.put("host", "::1");
        flags.put("port", "1234");
        flags.put("data_dir", dir.toString());
        flags.put("database_url", "postgresql://127.0.0.1:5432/test");
        flags.put("public_url", "http://baton:1234");
        flags.put("request_body_max_bytes", "4096");
        flags.put("registry_max_body_bytes", "2GiB");
        flags.put("admin_token", "s3cret-admin-token-value");
        flags.put("heartbeat_timeout", "10s");
        flags.put("acceptance_timeout", "20s");
        flags.put("job_timeout_grace", "1m");
        flags.put("cancel_deadline", "15s");
        flags.put("default_poll_timeout", "5s");
        flags.put("pull_token_ttl", "3m");
        flags.put("max_requeues", "2");
        flags.put("heartbeat_flush_interval", "500ms");
        flags.put("node_id", "node-a");
        flags.put("node_timeout", "45s");
        flags.put("token_submissions_per_minute", "30");
        flags.put("audit_retention", "90d");
        flags.put("blob_store", "s3");
        flags.put("blob_dir", "/srv/blobs");
        flags.put("s3_endpoint", "http://127.0.0.1:9000");
        flags.put("s3_region", "eu-central-1");
        flags.put("s3_bucket", "baton");
        flags.put("s3_prefix", "cluster-a");
        flags.put("s3_access_key_id", "AKIDEXAMPLE");
        flags.put("s3_secret_access_key", "wJalrXUtnFEMI");
        flags.put("s3_path_style", "false");
        flags.put("s3_part_size", "16MiB");
        flags.put("quarantine_threshold", "4");
        flags.put("quarantine_window", "30m");
        flags.put("advertise_url", "http://10.0.0.11:7701/");
        flags.put("image_affinity", "off");
        flags.put("nats_url", "nats://127.0.0.1:4222");
        flags.put("dispatch_transport", "websocket");
        flags.put("nats_specs", "x86-small, gpu");
        flags.put("lease_ttl", "90s");
        flags.put("nats_credentials", "/etc/baton/nats-server.nk");
        flags.put("trusted_proxies", "10.0.0.0/8, 2001:db8::1");
        flags.put("runner_connects_per_minute", "6");
        flags.put("runner_connect_burst", "3");
        flags.put("noise_calibration_interval", "6h");
        assertThat(flags.keySet()).containsExactlyInAnyOrderElementsOf(ConfigLoader.KEYS);
        ServerConfig c = ConfigLoader.load(null, Map.of(), flags);
        assertThat(c)
                .isEqualTo(new ServerConfig(
                        "::1",
                        1234,
                        dir,
                        "postgresql://127.0.0.1:5432/test",
                        "http://baton:1234",
                        4096,
                        2L * 1024 * 1024 * 1024,
                        "s3cret-admin-token-value",
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(20),
                        Duration.ofMinutes(1),
                        Duration.ofSeconds(15),
                        Duration.ofSeconds(5),
                        Duration.ofMinutes(3),
                        2,
                        Duration.ofMillis(500),
                        "node-a",
                        Duration.ofSeconds(45),
                        30,
                        Duration.ofDays(90),
                        new BlobSettings(
                                BlobSettings.Kind.S3,
                                Path.of("/srv/blobs"),
                                "http://127.0.0.1:9000",
                                "eu-central-1",
                                "baton",
                                "cluster-a",
                                "AKIDEXAMPLE",
                                "wJalrXUtnFEMI",
                                false,
                                16L * 1024 * 1024),
                        4,
                        Duration.ofMinutes(30),
                        "http://10.0.0.11:7701",
                        false,
                        new BrokerSettings(
                                "nats://127.0.0.1:4222",
                                "websocket",
                                java.util.Set.of("x86-small", "gpu"),
                                Duration.ofSeconds(90),
                                "/etc/baton/nats-server.nk"),
                        new EdgeSettings(List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("2001:db8::1/128")), 6, 3),
                        Duration.ofHours(6)));
    }

    @Test
    void keysCoverEveryComponentOfServerConfig() {
        // The blob storage settings are one component, a record of its own (BlobSettings).
        List<String> components = java.util.Arrays.stream(ServerConfig.class.getRecordComponents())
                .flatMap(rc -> rc.getType() == BlobSettings.class
                                || rc.getType() == BrokerSettings.class
                                || rc.getType() == EdgeSettings.class
                        ? java.util.Arrays.stream(rc.getType().getRecordComponents())
                        : java.util.stream.Stream.of(rc))
                .map(rc -> rc.getName().replaceAll("([A-Z])", "_$1").toLowerCase())
                .toList();
        assertThat(ConfigLoader.KEYS).containsExactlyElementsOf(components);
    }

    @Test
    void badValuesSayWhereTheyCameFrom() {
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("BATON_PORT", "http"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("BATON_PORT");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("port", "70000")))
                .hasMessageContaining("--port")
                .hasMessageContaining("65535");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("heartbeat_timeout", "soon")))
                .hasMessageContaining("--heartbeat-timeout");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("heartbeat_timeout", "0s")))
                .hasMessageContaining("longer than zero");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("public_url", "ftp://x")))
                .hasMessageContaining("http");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("request_body_max_bytes", "12")))
                .hasMessageContaining("at least");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("admin_token", "short")))
                .hasMessageContaining("16");
    }

    @Test
    void unknownKeysInTheFileAndMissingNamedFilesAreErrors() throws Exception {
        Path file = dir.resolve("c.json");
        Files.writeString(file, "{\"prot\": 1}");
        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of(), Map.of()))
                .hasMessageContaining("unknown setting 'prot'");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("missing.json"), Map.of(), Map.of()))
                .hasMessageContaining("cannot read");
        Files.writeString(file, "[1]");
        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of(), Map.of())).hasMessageContaining("JSON object");
    }

    @Test
    void docsListEveryKeyWithItsEnvVarAndFlag() throws Exception {
        // surefire runs in the module directory; the docs live at the repository root
        String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
        for (String key : ConfigLoader.KEYS) {
            assertThat(doc)
                    .contains("| `" + key + "` | `" + ConfigLoader.envName(key) + "` | `" + ConfigLoader.flagName(key)
                            + "` |");
        }
        ServerConfig d = ServerConfig.defaults(dir);
        Map<String, String> defaults = Map.of(
                "heartbeat_timeout", Durations.format(d.heartbeatTimeout()),
                "acceptance_timeout", Durations.format(d.acceptanceTimeout()),
                "job_timeout_grace", Durations.format(d.jobTimeoutGrace()),
                "cancel_deadline", Durations.format(d.cancelDeadline()),
                "default_poll_timeout", Durations.format(d.defaultPollTimeout()),
                "pull_token_ttl", Durations.format(d.pullTokenTtl()),
                "heartbeat_flush_interval", Durations.format(d.heartbeatFlushInterval()),
                "max_requeues", String.valueOf(d.maxRequeues()),
                "port", String.valueOf(d.port()),
                "host", d.host());
        defaults.forEach((key, value) -> assertThat(doc)
                .as("documented default of " + key)
                .contains("| `" + ConfigLoader.flagName(key) + "` | `" + value + "` |"));
        assertThat(d.requestBodyMaxBytes()).isEqualTo(Sizes.parse("16MiB"));
        assertThat(doc).contains("| `--request-body-max-bytes` | `16MiB` |");
        assertThat(d.registryMaxBodyBytes()).isEqualTo(Sizes.parse("1GiB"));
        assertThat(doc).contains("| `--registry-max-body-bytes` | `1GiB` |");
    }

    @Test
    void durationsAndSizes() {
        assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(Durations.parse("30")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(Durations.parse("PT45S")).isEqualTo(Duration.ofSeconds(45));
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Durations.format(Duration.ofMinutes(10))).isEqualTo("10m");
        assertThat(Sizes.parse("16MiB")).isEqualTo(16L * 1024 * 1024);
        assertThat(Sizes.parse("10KB")).isEqualTo(10_000);
        assertThat(Sizes.parse("123")).isEqualTo(123);
        assertThatThrownBy(() -> Sizes.parse("lots")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void blobStorageDefaultsToTheDataDirectoryAndS3NeedsABucket() {
        ServerConfig d = ConfigLoader.load(null, Map.of(), Map.of("data_dir", dir.toString()));
        assertThat(d.blobs()).isEqualTo(BlobSettings.directoryDefault());
        assertThat(d.blobs().directoryIn(dir)).isEqualTo(dir.resolve("storage"));

        // Credentials from the environment, like every setting; the secret is never printed.
        ServerConfig s3 = ConfigLoader.load(
                null,
                Map.of("BATON_S3_ACCESS_KEY_ID", "id", "BATON_S3_SECRET_ACCESS_KEY", "the-secret"),
                Map.of("blob_store", "s3", "s3_bucket", "b", "s3_endpoint", "http://127.0.0.1:9000/"));
        assertThat(s3.blobs().blobStore()).isEqualTo(BlobSettings.Kind.S3);
        assertThat(s3.blobs().s3Endpoint()).isEqualTo("http://127.0.0.1:9000");
        assertThat(s3.blobs().s3AccessKeyId()).isEqualTo("id");
        assertThat(s3.blobs().s3PathStyle()).isTrue();
        assertThat(s3.blobs().s3PartSize()).isEqualTo(BlobSettings.DEFAULT_PART_SIZE);
        assertThat(s3.toString()).doesNotContain("the-secret");

        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("blob_store", "s3")))
                .hasMessageContaining("s3_bucket");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("blob_store", "ftp")))
                .hasMessageContaining("--blob-store")
                .hasMessageContaining("'directory' or 's3'");
        assertThatThrownBy(() -> ConfigLoader.load(
                        null, Map.of(), Map.of("blob_store", "s3", "s3_bucket", "b", "s3_access_key_id", "id")))
                .hasMessageContaining("go together");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("s3_part_size", "1MiB")))
                .hasMessageContaining("--s3-part-size")
                .hasMessageContaining("at least");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("s3_part_size", "1GiB")))
                .hasMessageContaining("at most");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("s3_path_style", "yes")))
                .hasMessageContaining("true or false");
    }
}
