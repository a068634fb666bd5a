package dev.baton.cli;

import dev.baton.core.config.ConfigLoader;
import dev.baton.core.config.ServerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * One flag per server setting (the same keys as the config file and BATON_* variables; see
 * docs/configuration.md). Flags override the environment, which overrides the file.
 */
final class ServerOptions {
    @Option(
            names = "--config",
            description = "JSON config file (default: {data_dir}/baton.json if present; env BATON_CONFIG)")
    Path config;

    @Option(names = "--host", description = "listen address (default 127.0.0.1)")
    String host;

    @Option(names = "--port", description = "listen port, 0 for any free one (default 7700)")
    String port;

    @Option(names = "--data-dir", description = "SQLite file, job output, admin token (default ./data)")
    String dataDir;

    @Option(names = "--database-url", description = "postgresql://… (default: SQLite in the data dir)")
    String databaseUrl;

    @Option(
            names = "--public-url",
            description = "how runners and clients reach this server (default http://host:port)")
    String publicUrl;

    @Option(
            names = "--request-body-max-bytes",
            description = "bound of any API body and runner message (default 16MiB)")
    String requestBodyMaxBytes;

    @Option(names = "--registry-max-body-bytes", description = "bound of one OCI blob upload (default 1GiB)")
    String registryMaxBodyBytes;

    @Option(names = "--admin-token", description = "management token (default: generated into {data_dir}/admin-token)")
    String adminToken;

    @Option(names = "--heartbeat-timeout", description = "a runner silent this long is lost (default 30s)")
    String heartbeatTimeout;

    @Option(names = "--acceptance-timeout", description = "a claimed job must start within this (default 30s)")
    String acceptanceTimeout;

    @Option(names = "--job-timeout-grace", description = "server hard timeout = job timeout + this (default 1m)")
    String jobTimeoutGrace;

    @Option(names = "--cancel-deadline", description = "a runner told to cancel must answer within this (default 30s)")
    String cancelDeadline;

    @Option(names = "--default-poll-timeout", description = "how long a ready runner waits before no_job (default 30s)")
    String defaultPollTimeout;

    @Option(names = "--pull-token-ttl", description = "lifetime of OCI pull tokens (default 10m)")
    String pullTokenTtl;

    @Option(
            names = "--trusted-proxies",
            description = "CIDRs whose X-Forwarded-For is believed, comma-separated (default none)")
    String trustedProxies;

    @Option(
            names = "--runner-connects-per-minute",
            description = "channel connects one runner key earns back a minute; 0 no limit (default 12)")
    String runnerConnectsPerMinute;

    @Option(
            names = "--runner-connect-burst",
            description = "channel connects one runner key may make at once (default 20)")
    String runnerConnectBurst;

    @Option(names = "--max-requeues", description = "returns to the queue before start, then the job fails (default 5)")
    String maxRequeues;

    @Option(
            names = "--heartbeat-flush-interval",
            description = "how often liveness is written to the database (default 1s)")
    String heartbeatFlushInterval;

    @Option(
            names = "--node-id",
            description = "this server's name among the nodes sharing one database (default <hostname>-<pid>)")
    String nodeId;

    @Option(
            names = "--node-timeout",
            description = "a node silent this long is dead; the others take over its runners' jobs (default 30s)")
    String nodeTimeout;

    @Option(
            names = "--token-submissions-per-minute",
            description = "runs one API token may submit a minute, 0 for no limit (default 120)")
    String tokenSubmissionsPerMinute;

    @Option(names = "--audit-retention", description = "how long audit events are kept (default 365d)")
    String auditRetention;

    @Option(
            names = "--quarantine-threshold",
            description = "infrastructure failures within the window that quarantine a runner, 0 for never (default 0)")
    String quarantineThreshold;

    @Option(
            names = "--quarantine-window",
            description = "the sliding window quarantine counts failures in (default 1h)")
    String quarantineWindow;

    @Option(
            names = "--advertise-url",
            description =
                    "how the other server nodes reach this one (default http://host:port; live logs across nodes)")
    String advertiseUrl;

    @Option(
            names = "--noise-calibration-interval",
            description = "how long after an idle runner's latest noise calibration it is asked for another, e.g. 6h"
                    + " (default off; docs/configuration.md)")
    String noiseCalibrationInterval;

    @Option(
            names = "--image-affinity",
            description =
                    "prefer a waiting runner that holds a job's image: true (default) or false (docs/scheduling.md)")
    String imageAffinity;

    @Option(
            names = "--blob-store",
            description = "directory (default) or s3: where blobs, registry metadata and job output live")
    String blobStore;

    @Option(
            names = "--blob-dir",
            description = "the blob directory (default {data_dir}/storage; a shared mount serves several nodes)")
    String blobDir;

    @Option(names = "--s3-endpoint", description = "S3-compatible service URL, e.g. http://minio:9000 (default: AWS)")
    String s3Endpoint;

    @Option(names = "--s3-region", description = "S3 signing region (default us-east-1)")
    String s3Region;

    @Option(names = "--s3-bucket", description = "S3 bucket (required with --blob-store s3)")
    String s3Bucket;

    @Option(names = "--s3-prefix", description = "key prefix inside the bucket (default none)")
    String s3Prefix;

    @Option(
            names = "--s3-access-key-id",
            description = "S3 access key id (default: the AWS SDK's chain, e.g. AWS_ACCESS_KEY_ID)")
    String s3AccessKeyId;

    @Option(
            names = "--s3-secret-access-key",
            description = "S3 secret key (prefer BATON_S3_SECRET_ACCESS_KEY: flags show in ps)")
    String s3SecretAccessKey;

    @Option(
            names = "--s3-path-style",
            description = "path-style bucket addressing, true (default; MinIO, Ceph) or false")
    String s3PathStyle;

    @Option(names = "--s3-part-size", description = "multipart part size, 5MiB to 512MiB (default 8MiB)")
    String s3PartSize;

    @Option(
            names = "--nats-url",
            description = "the NATS transport's NATS server, nats://host:4222 (default none: the runner channel only)")
    String natsUrl;

    @Option(
            names = "--dispatch-transport",
            description = "websocket (default) or nats: every spec's jobs are offered on the broker too")
    String dispatchTransport;

    @Option(names = "--nats-specs", description = "spec slugs, comma-separated, whose jobs are offered on the broker")
    String natsSpecs;

    @Option(names = "--lease-ttl", description = "a NATS lease lives this long without a heartbeat (default 120s)")
    String leaseTtl;

    @Option(
            names = "--nats-credentials",
            paramLabel = "FILE",
            description = "the server's NATS credentials: a .creds file (user JWT and nkey seed) or an nkey seed file")
    String natsCredentials;

    Map<String, String> flags() {
        Map<String, String> m = new HashMap<>();
        put(m, "host", host);
        put(m, "port", port);
        put(m, "data_dir", dataDir);
        put(m, "database_url", databaseUrl);
        put(m, "public_url", publicUrl);
        put(m, "request_body_max_bytes", requestBodyMaxBytes);
        put(m, "registry_max_body_bytes", registryMaxBodyBytes);
        put(m, "admin_token", adminToken);
        put(m, "heartbeat_timeout", heartbeatTimeout);
        put(m, "acceptance_timeout", acceptanceTimeout);
        put(m, "job_timeout_grace", jobTimeoutGrace);
        put(m, "cancel_deadline", cancelDeadline);
        put(m, "default_poll_timeout", defaultPollTimeout);
        put(m, "pull_token_ttl", pullTokenTtl);
        put(m, "max_requeues", maxRequeues);
        put(m, "heartbeat_flush_interval", heartbeatFlushInterval);
        put(m, "node_id", nodeId);
        put(m, "node_timeout", nodeTimeout);
        put(m, "token_submissions_per_minute", tokenSubmissionsPerMinute);
        put(m, "audit_retention", auditRetention);
        put(m, "quarantine_threshold", quarantineThreshold);
        put(m, "quarantine_window", quarantineWindow);
        put(m, "advertise_url", advertiseUrl);
        put(m, "image_affinity", imageAffinity);
        put(m, "noise_calibration_interval", noiseCalibrationInterval);
        put(m, "blob_store", blobStore);
        put(m, "blob_dir", blobDir);
        put(m, "s3_endpoint", s3Endpoint);
        put(m, "s3_region", s3Region);
        put(m, "s3_bucket", s3Bucket);
        put(m, "s3_prefix", s3Prefix);
        put(m, "s3_access_key_id", s3AccessKeyId);
        put(m, "s3_secret_access_key", s3SecretAccessKey);
        put(m, "s3_path_style", s3PathStyle);
        put(m, "s3_part_size", s3PartSize);
        put(m, "nats_url", natsUrl);
        put(m, "dispatch_transport", dispatchTransport);
        put(m, "nats_specs", natsSpecs);
        put(m, "lease_ttl", leaseTtl);
        put(m, "nats_credentials", natsCredentials);
        put(m, "trusted_proxies", trustedProxies);
        put(m, "runner_connects_per_minute", runnerConnectsPerMinute);
        put(m, "runner_connect_burst", runnerConnectBurst);
        return m;
    }

    ServerConfig load(Map<String, String> env) {
        return ConfigLoader.load(config, env, flags());
    }

    private static void put(Map<String, String> m, String key, String value) {
        if (value != null) m.put(key, value);
    }
}
