package dev.baton.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

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
 * @param broker                 the NATS transport: the NATS broker and the specs offered on it (docs/protocol.md)
 * @param edge                   trusted proxies and the per-runner-key connect limit (issue 41)
 * @param noiseCalibrationInterval how long after an idle runner's latest noise calibration one node asks it for another (zero: never; decision 0062)
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
        boolean imageAffinity,
        BrokerSettings broker,
        EdgeSettings edge,
        Duration noiseCalibrationInterval) {

    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_TOKEN_SUBMISSIONS_PER_MINUTE = 120;
    public static final Duration DEFAULT_AUDIT_RETENTION = Duration.ofDays(365);
    /** Quarantine is off unless configured: 0 infrastructure failures never quarantine (docs/scheduling.md). */
    public static final int DEFAULT_QUARANTINE_THRESHOLD = 0;

    public static final Duration DEFAULT_QUARANTINE_WINDOW = Duration.ofHours(1);

    /** Image affinity is on unless turned off (docs/scheduling.md, "Image affinity"). */
    public static final boolean DEFAULT_IMAGE_AFFINITY = true;

    /** Off unless configured: a calibration keeps a runner from jobs for minutes (docs/configuration.md, decision 0062). */
    public static final Duration DEFAULT_NOISE_CALIBRATION_INTERVAL = Duration.ZERO;

    public ServerConfig {
        if (edge == null) edge = EdgeSettings.DEFAULTS;
        if (noiseCalibrationInterval == null) noiseCalibrationInterval = DEFAULT_NOISE_CALIBRATION_INTERVAL;
        if (noiseCalibrationInterval.isNegative())
            throw new IllegalArgumentException("noise_calibration_interval must be 0 (off) or longer");
        if (quarantineThreshold < 0) throw new IllegalArgumentException("quarantine_threshold must be 0 (off) or more");
        if (quarantineWindow == null || quarantineWindow.isNegative() || quarantineWindow.isZero()) {
            throw new IllegalArgumentException("quarantine_window must be longer than zero");
        }
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
                NodeIds.defaultId(),
                DEFAULT_NODE_TIMEOUT,
                DEFAULT_TOKEN_SUBMISSIONS_PER_MINUTE,
                DEFAULT_AUDIT_RETENTION,
                BlobSettings.directoryDefault(),
                DEFAULT_QUARANTINE_THRESHOLD,
                DEFAULT_QUARANTINE_WINDOW,
                null,
                DEFAULT_IMAGE_AFFINITY,
                BrokerSettings.NONE,
                EdgeSettings.DEFAULTS,
                DEFAULT_NOISE_CALIBRATION_INTERVAL);
    }

    /** A builder holding this config's settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** A builder starting from {@link #defaults} for {@code dataDir}. */
    public static Builder builder(Path dataDir) {
        return defaults(dataDir).toBuilder();
    }

    /** This config as node {@code nodeId} with {@code nodeTimeout}. */
    public ServerConfig withNode(String nodeId, Duration nodeTimeout) {
        return toBuilder().nodeId(nodeId).nodeTimeout(nodeTimeout).build();
    }

    /** This config quarantining a runner after {@code threshold} infrastructure failures within {@code window} (0: off). */
    public ServerConfig withQuarantine(int threshold, Duration window) {
        return toBuilder()
                .quarantineThreshold(threshold)
                .quarantineWindow(window)
                .build();
    }

    /** This config with image affinity on or off. */
    public ServerConfig withImageAffinity(boolean enabled) {
        return toBuilder().imageAffinity(enabled).build();
    }

    /** This config listening elsewhere (tests bind 127.0.0.1 and port 0). */
    public ServerConfig withListen(String host, int port) {
        return toBuilder().host(host).port(port).build();
    }

    /** This config believing {@code X-Forwarded-For} from these proxies (docs/operations.md). */
    public ServerConfig withTrustedProxies(List<Cidr> proxies) {
        return toBuilder().edge(edge.withTrustedProxies(proxies)).build();
    }

    /** This config with another submission limit per API token (0: none). */
    public ServerConfig withTokenSubmissionsPerMinute(int perMinute) {
        return toBuilder().tokenSubmissionsPerMinute(perMinute).build();
    }

    /**
     * Settings by name rather than by position: a config with 25 settings is unreadable as a
     * constructor call, and every new setting would otherwise touch every caller.
     */
    public static final class Builder {
        private String host;
        private int port;
        private Path dataDir;
        private String databaseUrl;
        private String publicUrl;
        private long requestBodyMaxBytes;
        private long registryMaxBodyBytes;
        private String adminToken;
        private Duration heartbeatTimeout;
        private Duration acceptanceTimeout;
        private Duration jobTimeoutGrace;
        private Duration cancelDeadline;
        private Duration defaultPollTimeout;
        private Duration pullTokenTtl;
        private int maxRequeues;
        private Duration heartbeatFlushInterval;
        private String nodeId;
        private Duration nodeTimeout;
        private int tokenSubmissionsPerMinute;
        private Duration auditRetention;
        private BlobSettings blobs;
        private int quarantineThreshold;
        private Duration quarantineWindow;
        private String advertiseUrl;
        private boolean imageAffinity;
        private BrokerSettings broker;
        private EdgeSettings edge;
        private Duration noiseCalibrationInterval;

        private Builder(ServerConfig c) {
            this.host = c.host;
            this.port = c.port;
            this.dataDir = c.dataDir;
            this.databaseUrl = c.databaseUrl;
            this.publicUrl = c.publicUrl;
            this.requestBodyMaxBytes = c.requestBodyMaxBytes;
            this.registryMaxBodyBytes = c.registryMaxBodyBytes;
            this.adminToken = c.adminToken;
            this.heartbeatTimeout = c.heartbeatTimeout;
            this.acceptanceTimeout = c.acceptanceTimeout;
            this.jobTimeoutGrace = c.jobTimeoutGrace;
            this.cancelDeadline = c.cancelDeadline;
            this.defaultPollTimeout = c.defaultPollTimeout;
            this.pullTokenTtl = c.pullTokenTtl;
            this.maxRequeues = c.maxRequeues;
            this.heartbeatFlushInterval = c.heartbeatFlushInterval;
            this.nodeId = c.nodeId;
            this.nodeTimeout = c.nodeTimeout;
            this.tokenSubmissionsPerMinute = c.tokenSubmissionsPerMinute;
            this.auditRetention = c.auditRetention;
            this.blobs = c.blobs;
            this.quarantineThreshold = c.quarantineThreshold;
            this.quarantineWindow = c.quarantineWindow;
            this.advertiseUrl = c.advertiseUrl;
            this.imageAffinity = c.imageAffinity;
            this.broker = c.broker;
            this.edge = c.edge;
            this.noiseCalibrationInterval = c.noiseCalibrationInterval;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        public Builder databaseUrl(String databaseUrl) {
            this.databaseUrl = databaseUrl;
            return this;
        }

        public Builder publicUrl(String publicUrl) {
            this.publicUrl = publicUrl;
            return this;
        }

        public Builder requestBodyMaxBytes(long requestBodyMaxBytes) {
            this.requestBodyMaxBytes = requestBodyMaxBytes;
            return this;
        }

        public Builder registryMaxBodyBytes(long registryMaxBodyBytes) {
            this.registryMaxBodyBytes = registryMaxBodyBytes;
            return this;
        }

        public Builder adminToken(String adminToken) {
            this.adminToken = adminToken;
            return this;
        }

        public Builder heartbeatTimeout(Duration heartbeatTimeout) {
            this.heartbeatTimeout = heartbeatTimeout;
            return this;
        }

        public Builder acceptanceTimeout(Duration acceptanceTimeout) {
            this.acceptanceTimeout = acceptanceTimeout;
            return this;
        }

        public Builder jobTimeoutGrace(Duration jobTimeoutGrace) {
            this.jobTimeoutGrace = jobTimeoutGrace;
            return this;
        }

        public Builder cancelDeadline(Duration cancelDeadline) {
            this.cancelDeadline = cancelDeadline;
            return this;
        }

        public Builder defaultPollTimeout(Duration defaultPollTimeout) {
            this.defaultPollTimeout = defaultPollTimeout;
            return this;
        }

        public Builder pullTokenTtl(Duration pullTokenTtl) {
            this.pullTokenTtl = pullTokenTtl;
            return this;
        }

        public Builder maxRequeues(int maxRequeues) {
            this.maxRequeues = maxRequeues;
            return this;
        }

        public Builder heartbeatFlushInterval(Duration heartbeatFlushInterval) {
            this.heartbeatFlushInterval = heartbeatFlushInterval;
            return this;
        }

        public Builder nodeId(String nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = nodeTimeout;
            return this;
        }

        public Builder tokenSubmissionsPerMinute(int tokenSubmissionsPerMinute) {
            this.tokenSubmissionsPerMinute = tokenSubmissionsPerMinute;
            return this;
        }

        public Builder auditRetention(Duration auditRetention) {
            this.auditRetention = auditRetention;
            return this;
        }

        public Builder blobs(BlobSettings blobs) {
            this.blobs = blobs;
            return this;
        }

        public Builder quarantineThreshold(int quarantineThreshold) {
            this.quarantineThreshold = quarantineThreshold;
            return this;
        }

        public Builder quarantineWindow(Duration quarantineWindow) {
            this.quarantineWindow = quarantineWindow;
            return this;
        }

        public Builder advertiseUrl(String advertiseUrl) {
            this.advertiseUrl = advertiseUrl;
            return this;
        }

        public Builder broker(BrokerSettings broker) {
            this.broker = broker;
            return this;
        }

        public Builder edge(EdgeSettings edge) {
            this.edge = edge;
            return this;
        }

        public Builder noiseCalibrationInterval(Duration noiseCalibrationInterval) {
            this.noiseCalibrationInterval = noiseCalibrationInterval;
            return this;
        }

        public Builder imageAffinity(boolean imageAffinity) {
            this.imageAffinity = imageAffinity;
            return this;
        }

        public ServerConfig build() {
            return new ServerConfig(
                    host,
                    port,
                    dataDir,
                    databaseUrl,
                    publicUrl,
                    requestBodyMaxBytes,
                    registryMaxBodyBytes,
                    adminToken,
                    heartbeatTimeout,
                    acceptanceTimeout,
                    jobTimeoutGrace,
                    cancelDeadline,
                    defaultPollTimeout,
                    pullTokenTtl,
                    maxRequeues,
                    heartbeatFlushInterval,
                    nodeId,
                    nodeTimeout,
                    tokenSubmissionsPerMinute,
                    auditRetention,
                    blobs,
                    quarantineThreshold,
                    quarantineWindow,
                    advertiseUrl,
                    imageAffinity,
                    broker,
                    edge,
                    noiseCalibrationInterval);
        }
    }
}
