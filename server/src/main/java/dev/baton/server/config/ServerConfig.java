package dev.baton.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Every setting of a Baton server, resolved from defaults, the config file, BATON_* environment
 * variables and flags (in that order of precedence, lowest first). See docs/configuration.md.
 *
 * @param host                   listen address
 * @param port                   listen port (0 picks a free one)
 * @param dataDir                SQLite file, blobs (images, job output), generated secrets
 * @param databaseUrl            null for the embedded SQLite file in dataDir, or postgresql://…
 * @param publicUrl              how runners and clients reach this server; null derives it from host and port
 * @param requestBodyMaxBytes    bound of any REST body and of any runner channel message/frame
 * @param registryMaxBodyBytes   bound of one OCI blob upload
 * @param adminToken             management token; null generates one into dataDir on first start
 * @param heartbeatTimeout       a connected runner silent this long is considered lost
 * @param acceptanceTimeout      a claimed job must see {@code running} (or {@code preparing}) within this
 * @param jobTimeoutGrace        server hard timeout = job timeout + this
 * @param cancelDeadline         a runner told to cancel must answer within this, or the job is finalized canceled
 * @param defaultPollTimeout     how long a {@code ready} without poll_timeout waits before {@code no_job}
 * @param pullTokenTtl           lifetime of the OCI pull token handed out with a job
 * @param maxRequeues            returns to the queue before start allowed, then the job fails
 * @param heartbeatFlushInterval how often in-memory liveness is written to the database
 * @param nodeId                 this server's name among the nodes sharing the database (default {@code <hostname>-<pid>})
 * @param nodeTimeout            a node that has not heartbeaten for this long is dead: the others take over its runners' jobs
 * @param tokenSubmissionsPerMinute runs one API token may submit a minute (0: no limit; the admin token is never limited)
 * @param auditRetention         how long audit events are kept
 * @param blobs                  where blobs, registry metadata and job output are stored
 * @param quarantineThreshold    infrastructure failures within quarantineWindow that quarantine a runner (0: never)
 * @param quarantineWindow       the sliding window quarantine counts failures in
 * @param advertiseUrl           how the other nodes reach this one (live logs across nodes); null derives it from host and the bound port
 * @param imageAffinity          prefer a waiting runner that holds a job's image (docs/scheduling.md)
 */
public record ServerConfig(
        String host,
        int port,
        Path dataDir,
        String databaseUrl,
        String publicUrl,
        long requestBodyMaxBytes,
        long registryMaxBodyBytes,
        String adminToken,
        Duration heartbeatTimeout,
        Duration acceptanceTimeout,
        Duration jobTimeoutGrace,
        Duration cancelDeadline,
        Duration defaultPollTimeout,
        Duration pullTokenTtl,
        int maxRequeues,
        Duration heartbeatFlushInterval,
        String nodeId,
        Duration nodeTimeout,
        int tokenSubmissionsPerMinute,
        Duration auditRetention,
        BlobSettings blobs,
        int quarantineThreshold,
        Duration quarantineWindow,
        String advertiseUrl,
        boolean imageAffinity) {

    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_TOKEN_SUBMISSIONS_PER_MINUTE = 120;
    public static final Duration DEFAULT_AUDIT_RETENTION = Duration.ofDays(365);
    /** Quarantine is off unless configured: 0 infrastructure failures never quarantine (docs/scheduling.md). */
    public static final int DEFAULT_QUARANTINE_THRESHOLD = 0;
    public static final Duration DEFAULT_QUARANTINE_WINDOW = Duration.ofHours(1);

    /** Image affinity is on unless turned off (docs/scheduling.md, "Image affinity"). */
    public static final boolean DEFAULT_IMAGE_AFFINITY = true;

    public ServerConfig {
        if (quarantineThreshold < 0) throw new IllegalArgumentException("quarantine_threshold must be 0 (off) or more");
        if (quarantineWindow == null || quarantineWindow.isNegative() || quarantineWindow.isZero()) {
            throw new IllegalArgumentException("quarantine_window must be longer than zero");
        }
    }

    /** The settings before live logs across nodes: the advertised address is derived from host and port. */
    public ServerConfig(String host, int port, Path dataDir, String databaseUrl, String publicUrl, long requestBodyMaxBytes,
            long registryMaxBodyBytes, String adminToken, Duration heartbeatTimeout, Duration acceptanceTimeout, Duration jobTimeoutGrace,
            Duration cancelDeadline, Duration defaultPollTimeout, Duration pullTokenTtl, int maxRequeues, Duration heartbeatFlushInterval,
            String nodeId, Duration nodeTimeout, int tokenSubmissionsPerMinute, Duration auditRetention, BlobSettings blobs,
            int quarantineThreshold, Duration quarantineWindow) {
        this(host, port, dataDir, databaseUrl, publicUrl, requestBodyMaxBytes, registryMaxBodyBytes, adminToken, heartbeatTimeout,
                acceptanceTimeout, jobTimeoutGrace, cancelDeadline, defaultPollTimeout, pullTokenTtl, maxRequeues, heartbeatFlushInterval,
                nodeId, nodeTimeout, tokenSubmissionsPerMinute, auditRetention, blobs, quarantineThreshold, quarantineWindow, null,
                DEFAULT_IMAGE_AFFINITY);
    }

    /** The settings before the flaky-runner quarantine (issue 19), which is then off. */
    public ServerConfig(String host, int port, Path dataDir, String databaseUrl, String publicUrl, long requestBodyMaxBytes,
            long registryMaxBodyBytes, String adminToken, Duration heartbeatTimeout, Duration acceptanceTimeout, Duration jobTimeoutGrace,
            Duration cancelDeadline, Duration defaultPollTimeout, Duration pullTokenTtl, int maxRequeues, Duration heartbeatFlushInterval,
            String nodeId, Duration nodeTimeout, int tokenSubmissionsPerMinute, Duration auditRetention, BlobSettings blobs) {
        this(host, port, dataDir, databaseUrl, publicUrl, requestBodyMaxBytes, registryMaxBodyBytes, adminToken, heartbeatTimeout,
                acceptanceTimeout, jobTimeoutGrace, cancelDeadline, defaultPollTimeout, pullTokenTtl, maxRequeues, heartbeatFlushInterval,
                nodeId, nodeTimeout, tokenSubmissionsPerMinute, auditRetention, blobs, DEFAULT_QUARANTINE_THRESHOLD, DEFAULT_QUARANTINE_WINDOW);
    }

    /** The settings before nodes (issue 14), access control (issue 20) and blob storage, with their defaults. */
    public ServerConfig(String host, int port, Path dataDir, String databaseUrl, String publicUrl, long requestBodyMaxBytes,
            long registryMaxBodyBytes, String adminToken, Duration heartbeatTimeout, Duration acceptanceTimeout, Duration jobTimeoutGrace,
            Duration cancelDeadline, Duration defaultPollTimeout, Duration pullTokenTtl, int maxRequeues, Duration heartbeatFlushInterval) {
        this(host, port, dataDir, databaseUrl, publicUrl, requestBodyMaxBytes, registryMaxBodyBytes, adminToken, heartbeatTimeout,
                acceptanceTimeout, jobTimeoutGrace, cancelDeadline, defaultPollTimeout, pullTokenTtl, maxRequeues, heartbeatFlushInterval,
                dev.baton.server.cluster.NodeIds.defaultId(), DEFAULT_NODE_TIMEOUT, DEFAULT_TOKEN_SUBMISSIONS_PER_MINUTE,
                DEFAULT_AUDIT_RETENTION, BlobSettings.directoryDefault());
    }

    /** This config as node {@code nodeId} with {@code nodeTimeout}. */
    public ServerConfig withNode(String nodeId, Duration nodeTimeout) {
        return new ServerConfig(host, port, dataDir, databaseUrl, publicUrl, requestBodyMaxBytes, registryMaxBodyBytes, adminToken,
                heartbeatTimeout, acceptanceTimeout, jobTimeoutGrace, cancelDeadline, defaultPollTimeout, pullTokenTtl, maxRequeues,
                heartbeatFlushInterval, nodeId, nodeTimeout, tokenSubmissionsPerMinute, auditRetention, blobs,
                quarantineThreshold, quarantineWindow, advertiseUrl, imageAffinity);
    }

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 7700;

    /** Defaults for a local installation in {@code dataDir}. */
    public static ServerConfig defaults(Path dataDir) {
        return new ServerConfig(
                DEFAULT_HOST,
                DEFAULT_PORT,
                dataDir,
                null,
                null,
                16L * 1024 * 1024,
                1024L * 1024 * 1024,
                null,
                Duration.ofSeconds(30),
                Duration.ofSeconds(30),
                Duration.ofSeconds(60),
                Duration.ofSeconds(30),
                Duration.ofSeconds(30),
                Duration.ofMinutes(10),
                5,
                Duration.ofSeconds(1),
                dev.baton.server.cluster.NodeIds.defaultId(),
                DEFAULT_NODE_TIMEOUT,
                DEFAULT_TOKEN_SUBMISSIONS_PER_MINUTE,
                DEFAULT_AUDIT_RETENTION,
                BlobSettings.directoryDefault(),
                DEFAULT_QUARANTINE_THRESHOLD,
                DEFAULT_QUARANTINE_WINDOW,
                null,
                DEFAULT_IMAGE_AFFINITY);
    }

    /** This config quarantining a runner after {@code threshold} infrastructure failures within {@code window} (0: off). */
    public ServerConfig withQuarantine(int threshold, Duration window) {
        return new ServerConfig(host, port, dataDir, databaseUrl, publicUrl, requestBodyMaxBytes, registryMaxBodyBytes, adminToken,
                heartbeatTimeout, acceptanceTimeout, jobTimeoutGrace, cancelDeadline, defaultPollTimeout, pullTokenTtl, maxRequeues,
                heartbeatFlushInterval, nodeId, nodeTimeout, tokenSubmissionsPerMinute, auditRetention, blobs, threshold, window,
                advertiseUrl, imageAffinity);
    }

    /** This config with image affinity on or off. */
    public ServerConfig withImageAffinity(boolean enabled) {
        return new ServerConfig(host, port, dataDir, databaseUrl, publicUrl, requestBodyMaxBytes, registryMaxBodyBytes, adminToken,
                heartbeatTimeout, acceptanceTimeout, jobTimeoutGrace, cancelDeadline, defaultPollTimeout, pullTokenTtl, maxRequeues,
                heartbeatFlushInterval, nodeId, nodeTimeout, tokenSubmissionsPerMinute, auditRetention, blobs,
                quarantineThreshold, quarantineWindow, advertiseUrl, enabled);
    }

    /** This config listening elsewhere (tests bind 127.0.0.1 and port 0). */
    public ServerConfig withListen(String host, int port) {
        return new ServerConfig(host, port, dataDir, databaseUrl, publicUrl, requestBodyMaxBytes, registryMaxBodyBytes, adminToken,
                heartbeatTimeout, acceptanceTimeout, jobTimeoutGrace, cancelDeadline, defaultPollTimeout, pullTokenTtl, maxRequeues,
                heartbeatFlushInterval, nodeId, nodeTimeout, tokenSubmissionsPerMinute, auditRetention, blobs,
                quarantineThreshold, quarantineWindow, advertiseUrl, imageAffinity);
    }

    /** This config with another submission limit per API token (0: none). */
    public ServerConfig withTokenSubmissionsPerMinute(int perMinute) {
        return new ServerConfig(host, port, dataDir, databaseUrl, publicUrl, requestBodyMaxBytes, registryMaxBodyBytes, adminToken,
                heartbeatTimeout, acceptanceTimeout, jobTimeoutGrace, cancelDeadline, defaultPollTimeout, pullTokenTtl, maxRequeues,
                heartbeatFlushInterval, nodeId, nodeTimeout, perMinute, auditRetention, blobs,
                quarantineThreshold, quarantineWindow, advertiseUrl, imageAffinity);
    }
}
