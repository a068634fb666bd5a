package dev.baton.dispatch.logs;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.store.Job;
import dev.baton.store.Store;
import dev.baton.store.token.NodeTokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader's node asking the node that holds a job's live log for a page of it
 * (docs/decisions/0016-cross-node-live.md): the runner's node (the store's {@code runner.node_id}),
 * at the address it advertised, with a {@link NodeTokens} credential for that one job. Entries keep
 * the holder's numbering, so a reader may move between nodes and resume by seq.
 *
 * <p>Once a node answered for a job it stays the job's source here (the last {@link LiveLogs#IDLE_LOGS}
 * jobs), even after the runner moved on: only the node that had the live entries numbers the whole
 * log the same way. A dead node (no heartbeat within {@code node_timeout}), one that does not hold
 * the log, or one that does not answer leaves the page to this node: empty while the job runs, the
 * whole stored output once it ended, as without this class.
 */
final class PeerLogs implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLogs.class);
    static final String PATH = "/cluster/jobs/{job}/logs";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** Beyond the holder's own wait: a holder that stops answering costs a reader this long at most. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(5);

    private final Store store;
    private final NodeTokens tokens;
    private final String self;
    private final Duration nodeTimeout;
    private final Clock clock;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT)
            .build();
    private final Map<JobUuid, String> sources = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<JobUuid, String> eldest) {
            return size() > LiveLogs.IDLE_LOGS;
        }
    };

    PeerLogs(Store store, NodeTokens tokens, String self, Duration nodeTimeout, Clock clock) {
        this.store = store;
        this.tokens = tokens;
        this.self = self;
        this.nodeTimeout = nodeTimeout;
        this.clock = clock;
    }

    /** The holder's page after {@code after}, waiting up to {@code wait} there for news; empty: this node answers itself. */
    Optional<PeerPage> read(Job job, long after, Duration wait) {
        String node = source(job);
        if (node == null) return Optional.empty();
        Optional<String> url = store.nodes().liveNodeUrl(node, clock.instant().minus(nodeTimeout));
        if (url.isEmpty()) return Optional.empty();
        URI uri = URI.create(url.get() + PATH.replace("{job}", job.uuid().toString()) + "?after=" + after + "&wait="
                + wait.toMillis());
        HttpRequest request = HttpRequest.newBuilder(uri)
                .header("Authorization", "Bearer " + tokens.issue(self, job.uuid(), clock.instant()))
                .timeout(wait.plus(ANSWER_TIMEOUT))
                .GET()
                .build();
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                remember(job.uuid(), node);
                return Optional.of(Wire.mapper().readValue(r.body(), PeerPage.class));
            }
            // 404: that node never had the log live (or no longer keeps it); anything else: it cannot answer now.
            if (r.statusCode() == 404) forget(job.uuid(), node);
            else LOG.debug("node {} answered {} for the log of job {}", node, r.statusCode(), job.uuid());
            return Optional.empty();
        } catch (IOException e) {
            LOG.debug("node {} did not answer for the log of job {}: {}", node, job.uuid(), e.toString());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * True when another node answered for this job before (and still numbers it, as far as this
     * node knows): this node's readers keep that node's numbering even once an attempt of the job
     * runs here (the runner moved here, or a retry came here).
     */
    boolean remembers(JobUuid job) {
        synchronized (sources) {
            return sources.containsKey(job);
        }
    }

    /** The node that answered for this job before, else the node holding its runner's channel if that is another one. */
    private String source(Job job) {
        synchronized (sources) {
            String known = sources.get(job.uuid());
            if (known != null) return known;
        }
        if (job.runnerId() == null) return null;
        return store.nodes()
                .runnerNode(job.runnerId())
                .filter(n -> !n.equals(self))
                .orElse(null);
    }

    private void remember(JobUuid job, String node) {
        synchronized (sources) {
            sources.put(job, node);
        }
    }

    @Override
    public void close() {
        http.shutdownNow();
    }

    private void forget(JobUuid job, String node) {
        synchronized (sources) {
            sources.remove(job, node);
        }
    }
}
