package dev.baton.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Resolves a {@link ServerConfig}: defaults, then the JSON config file, then {@code BATON_*}
 * environment variables, then flags (each overrides the ones before). Keys are the snake_case
 * names of {@link #KEYS}; the env var of key {@code data_dir} is {@code BATON_DATA_DIR}, the flag
 * {@code --data-dir}. The file is {@code --config}/{@code BATON_CONFIG}, else
 * {@code {data_dir}/baton.json} if it exists. docs/configuration.md documents every key.
 */
public final class ConfigLoader {
    public static final String CONFIG_FILE_NAME = "baton.json";
    public static final Path DEFAULT_DATA_DIR = Path.of("data");

    /** Every setting, in the order of {@link ServerConfig}'s components. */
    public static final List<String> KEYS = List.of(
            "host",
            "port",
            "data_dir",
            "database_url",
            "public_url",
            "request_body_max_bytes",
            "registry_max_body_bytes",
            "admin_token",
            "heartbeat_timeout",
            "acceptance_timeout",
            "job_timeout_grace",
            "cancel_deadline",
            "default_poll_timeout",
            "pull_token_ttl",
            "max_requeues",
            "heartbeat_flush_interval",
            "node_id",
            "node_timeout",
            "token_submissions_per_minute",
            "audit_retention",
            // Blob storage (BlobSettings), in its order.
            "blob_store",
            "blob_dir",
            "s3_endpoint",
            "s3_region",
            "s3_bucket",
            "s3_prefix",
            "s3_access_key_id",
            "s3_secret_access_key",
            "s3_path_style",
            "s3_part_size",
            // Flaky-runner quarantine (docs/scheduling.md).
            "quarantine_threshold",
            "quarantine_window",
            // Live logs across nodes (docs/decisions/0016-cross-node-live.md).
            "advertise_url",
            // Image affinity (docs/scheduling.md).
            "image_affinity",
            // The NATS transport (docs/protocol.md, "Transport A").
            "nats_url",
            "dispatch_transport",
            "nats_specs",
            "lease_ttl",
            "nats_credentials",
            // Trusted proxies and the runner connect limit (EdgeSettings, issue 41).
            "trusted_proxies",
            "runner_connects_per_minute",
            "runner_connect_burst",
            // Each runner's noise, measured again on a schedule (decision 0062).
            "noise_calibration_interval");

    private ConfigLoader() {}

    public static String envName(String key) {
        return "BATON_" + key.toUpperCase(Locale.ROOT);
    }

    public static String flagName(String key) {
        return "--" + key.replace('_', '-');
    }

    /**
     * @param configFile explicit config file (null: BATON_CONFIG, else {data_dir}/baton.json if present)
     * @param env        the process environment (only BATON_* keys are read)
     * @param flags      flag values by key (snake_case), null values ignored
     */
    public static ServerConfig load(Path configFile, Map<String, String> env, Map<String, String> flags) {
        for (String key : flags.keySet()) {
            if (!KEYS.contains(key)) throw new ConfigException("unknown setting '" + key + "'");
        }
        Map<String, Value> values = new LinkedHashMap<>();
        Map<String, Value> fromEnv = new LinkedHashMap<>();
        Map<String, Value> fromFlags = new LinkedHashMap<>();
        for (String key : KEYS) {
            String e = env.get(envName(key));
            if (e != null) fromEnv.put(key, new Value(e, "environment variable " + envName(key)));
            String f = flags.get(key);
            if (f != null) fromFlags.put(key, new Value(f, "flag " + flagName(key)));
        }

        // The file's location may depend on data_dir, which the file itself cannot move.
        Path file = configFile;
        if (file == null && env.get("BATON_CONFIG") != null) file = Path.of(env.get("BATON_CONFIG"));
        boolean explicit = file != null;
        if (file == null) {
            Value dir = fromFlags.getOrDefault("data_dir", fromEnv.get("data_dir"));
            file = (dir == null ? DEFAULT_DATA_DIR : Path.of(dir.text())).resolve(CONFIG_FILE_NAME);
        }
        if (explicit || Files.exists(file)) values.putAll(readFile(file));
        values.putAll(fromEnv);
        values.putAll(fromFlags);
        return build(values);
    }

    private static Map<String, Value> readFile(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
        if (root == null || !root.isObject())
            throw new ConfigException("config file " + file + " must hold a JSON object");
        Map<String, Value> values = new LinkedHashMap<>();
        var fields = root.fields();
        while (fields.hasNext()) {
            var field = fields.next();
            String key = field.getKey();
            if (!KEYS.contains(key))
                throw new ConfigException("config file " + file + ": unknown setting '" + key + "'; known: " + KEYS);
            JsonNode node = field.getValue();
            if (node.isNull()) continue;
            if (node.isArray() && key.equals("trusted_proxies")) {
                List<String> items = new ArrayList<>();
                node.forEach(item -> items.add(item.asText()));
                values.put(key, new Value(String.join(",", items), "config file " + file + " key '" + key + "'"));
                continue;
            }
            if (!node.isValueNode())
                throw new ConfigException("config file " + file + ": '" + key + "' must be a string or a number");
            values.put(key, new Value(node.asText(), "config file " + file + " key '" + key + "'"));
        }
        return values;
    }

    private static ServerConfig build(Map<String, Value> v) {
        Path dataDir = v.containsKey("data_dir") ? Path.of(text(v.get("data_dir"))) : DEFAULT_DATA_DIR;
        ServerConfig d = ServerConfig.defaults(dataDir);
        return new ServerConfig(
                v.containsKey("host") ? text(v.get("host")) : d.host(),
                v.containsKey("port") ? (int) number(v.get("port"), 0, 65535) : d.port(),
                dataDir,
                v.containsKey("database_url") ? text(v.get("database_url")) : d.databaseUrl(),
                v.containsKey("public_url") ? url(v.get("public_url")) : d.publicUrl(),
                v.containsKey("request_body_max_bytes")
                        ? size(v.get("request_body_max_bytes"), 1024)
                        : d.requestBodyMaxBytes(),
                v.containsKey("registry_max_body_bytes")
                        ? size(v.get("registry_max_body_bytes"), 1024)
                        : d.registryMaxBodyBytes(),
                v.containsKey("admin_token") ? adminToken(v.get("admin_token")) : d.adminToken(),
                duration(v, "heartbeat_timeout", d.heartbeatTimeout()),
                duration(v, "acceptance_timeout", d.acceptanceTimeout()),
                duration(v, "job_timeout_grace", d.jobTimeoutGrace()),
                duration(v, "cancel_deadline", d.cancelDeadline()),
                duration(v, "default_poll_timeout", d.defaultPollTimeout()),
                duration(v, "pull_token_ttl", d.pullTokenTtl()),
                v.containsKey("max_requeues") ? (int) number(v.get("max_requeues"), 0, 1000) : d.maxRequeues(),
                duration(v, "heartbeat_flush_interval", d.heartbeatFlushInterval()),
                v.containsKey("node_id") ? nodeId(v.get("node_id")) : d.nodeId(),
                duration(v, "node_timeout", d.nodeTimeout()),
                v.containsKey("token_submissions_per_minute")
                        ? (int) number(v.get("token_submissions_per_minute"), 0, 1_000_000)
                        : d.tokenSubmissionsPerMinute(),
                duration(v, "audit_retention", d.auditRetention()),
                blobs(v),
                v.containsKey("quarantine_threshold")
                        ? (int) number(v.get("quarantine_threshold"), 0, 10_000)
                        : d.quarantineThreshold(),
                duration(v, "quarantine_window", d.quarantineWindow()),
                v.containsKey("advertise_url") ? url(v.get("advertise_url")) : d.advertiseUrl(),
                v.containsKey("image_affinity") ? bool(v.get("image_affinity")) : d.imageAffinity(),
                broker(v),
                edge(v),
                offOrDuration(v, "noise_calibration_interval", d.noiseCalibrationInterval()));
    }

    private static EdgeSettings edge(Map<String, Value> v) {
        EdgeSettings d = EdgeSettings.DEFAULTS;
        List<Cidr> proxies = d.trustedProxies();
        if (v.containsKey("trusted_proxies")) {
            try {
                proxies = EdgeSettings.cidrs(v.get("trusted_proxies").text());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(v.get("trusted_proxies").source() + ": " + e.getMessage());
            }
        }
        int perMinute = v.containsKey("runner_connects_per_minute")
                ? (int) number(v.get("runner_connects_per_minute"), 0, 1_000_000)
                : d.runnerConnectsPerMinute();
        int burst = v.containsKey("runner_connect_burst")
                ? (int) number(v.get("runner_connect_burst"), 1, 1_000_000)
                : d.runnerConnectBurst();
        return new EdgeSettings(proxies, perMinute, burst);
    }

    private static BrokerSettings broker(Map<String, Value> v) {
        try {
            return new BrokerSettings(
                    v.containsKey("nats_url") ? text(v.get("nats_url")) : null,
                    v.containsKey("dispatch_transport") ? text(v.get("dispatch_transport")) : null,
                    v.containsKey("nats_specs") ? BrokerSettings.slugs(text(v.get("nats_specs"))) : java.util.Set.of(),
                    duration(v, "lease_ttl", BrokerSettings.DEFAULT_LEASE_TTL),
                    v.containsKey("nats_credentials") ? text(v.get("nats_credentials")) : null);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    private static boolean bool(Value value) {
        return switch (text(value).toLowerCase(Locale.ROOT)) {
            case "true", "on" -> true;
            case "false", "off" -> false;
            default -> throw new ConfigException(value.source() + " must be true or false, got '" + text(value) + "'");
        };
    }

    private static BlobSettings blobs(Map<String, Value> v) {
        BlobSettings d = BlobSettings.directoryDefault();
        BlobSettings.Kind kind = d.blobStore();
        if (v.containsKey("blob_store")) {
            kind = switch (text(v.get("blob_store")).toLowerCase(Locale.ROOT)) {
                case "directory" -> BlobSettings.Kind.DIRECTORY;
                case "s3" -> BlobSettings.Kind.S3;
                default ->
                    throw new ConfigException(v.get("blob_store").source() + " must be 'directory' or 's3', got '"
                            + v.get("blob_store").text() + "'");
            };
        }
        String bucket = v.containsKey("s3_bucket") ? text(v.get("s3_bucket")) : null;
        if (kind == BlobSettings.Kind.S3 && bucket == null) {
            throw new ConfigException("blob_store s3 needs s3_bucket (BATON_S3_BUCKET, --s3-bucket)");
        }
        String keyId = v.containsKey("s3_access_key_id") ? text(v.get("s3_access_key_id")) : null;
        String secret = v.containsKey("s3_secret_access_key") ? text(v.get("s3_secret_access_key")) : null;
        if ((keyId == null) != (secret == null)) {
            throw new ConfigException(
                    "s3_access_key_id and s3_secret_access_key go together (or neither, for the AWS default chain)");
        }
        boolean pathStyle = d.s3PathStyle();
        if (v.containsKey("s3_path_style")) {
            pathStyle = switch (text(v.get("s3_path_style")).toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new ConfigException(v.get("s3_path_style").source() + " must be true or false");
            };
        }
        return new BlobSettings(
                kind,
                v.containsKey("blob_dir") ? Path.of(text(v.get("blob_dir"))) : d.blobDir(),
                v.containsKey("s3_endpoint") ? url(v.get("s3_endpoint")) : d.s3Endpoint(),
                v.containsKey("s3_region") ? text(v.get("s3_region")) : d.s3Region(),
                bucket,
                v.containsKey("s3_prefix") ? v.get("s3_prefix").text().strip() : d.s3Prefix(),
                keyId,
                secret,
                pathStyle,
                v.containsKey("s3_part_size") ? partSize(v.get("s3_part_size")) : d.s3PartSize());
    }

    private static long partSize(Value v) {
        long n = size(v, BlobSettings.MIN_PART_SIZE);
        if (n > BlobSettings.MAX_PART_SIZE)
            throw new ConfigException(v.source() + " must be at most 512MiB (one part is held in memory)");
        return n;
    }

    private record Value(String text, String source) {}

    private static String nodeId(Value v) {
        String id = text(v);
        if (!NodeIds.VALID.matcher(id).matches()) {
            throw new ConfigException(v.source()
                    + " must be 1-63 letters, digits, '.', '_', ':' or '-', starting with a letter or digit");
        }
        return id;
    }

    private static String text(Value v) {
        String t = v.text().strip();
        if (t.isEmpty()) throw new ConfigException(v.source() + " must not be empty");
        return t;
    }

    private static long number(Value v, long min, long max) {
        try {
            long n = Long.parseLong(v.text().strip());
            if (n < min || n > max)
                throw new ConfigException(v.source() + " must be between " + min + " and " + max + ", got " + n);
            return n;
        } catch (NumberFormatException e) {
            throw new ConfigException(v.source() + " must be a whole number, got '" + v.text() + "'");
        }
    }

    private static long size(Value v, long min) {
        try {
            long n = Sizes.parse(v.text());
            if (n < min) throw new ConfigException(v.source() + " must be at least " + min + " bytes, got " + n);
            return n;
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new ConfigException(v.source() + ": " + e.getMessage());
        }
    }

    private static Duration duration(Map<String, Value> values, String key, Duration fallback) {
        Value v = values.get(key);
        if (v == null) return fallback;
        try {
            Duration d = Durations.parse(v.text());
            if (d.isZero() || d.isNegative()) throw new ConfigException(v.source() + " must be longer than zero");
            return d;
        } catch (IllegalArgumentException e) {
            throw new ConfigException(v.source() + ": " + e.getMessage());
        }
    }

    /** A duration, or {@code off} / {@code 0}: zero (the setting is off). */
    private static Duration offOrDuration(Map<String, Value> values, String key, Duration fallback) {
        Value v = values.get(key);
        if (v == null) return fallback;
        String t = v.text().strip();
        if (t.equals("off") || t.equals("0")) return Duration.ZERO;
        return duration(values, key, fallback);
    }

    private static String url(Value v) {
        String t = text(v).replaceAll("/+$", "");
        try {
            URI uri = URI.create(t);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new ConfigException(v.source() + " must be an http:// or https:// URL, got '" + t + "'");
            }
            return t;
        } catch (IllegalArgumentException e) {
            throw new ConfigException(v.source() + " is not a URL: '" + t + "'");
        }
    }

    private static String adminToken(Value v) {
        String t = text(v);
        if (t.length() < 16) throw new ConfigException(v.source() + " must be at least 16 characters");
        return t;
    }
}
