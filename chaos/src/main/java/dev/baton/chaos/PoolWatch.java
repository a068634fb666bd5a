package dev.baton.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The pool scenario's view of the pool's machines: {@code GET /v0/pools/chaos} every 500 ms (its
 * live machines and the last 20 that ended), each machine kept as last seen. A machine lives at
 * least a runner JVM's start-up, and far fewer than 20 end per second here, so none is missed; while
 * no node answers, nothing changes in the store either (only nodes write it).
 */
final class PoolWatch implements AutoCloseable {
    static final Set<String> LIVE = Set.of("starting", "idle", "busy", "stopping");
    /** Between two reads: each read costs the server a few queries per machine shown. */
    private static final long EVERY_MS = 500;

    private final Api api;
    private final Map<String, JsonNode> machines = new LinkedHashMap<>();
    private volatile boolean closed;
    private Thread thread;
    private Instant lastRead;

    PoolWatch(Api api) {
        this.api = api;
    }

    PoolWatch start() {
        thread = Thread.ofVirtual().name("pool-watch").start(() -> {
            while (!closed) {
                try {
                    refresh();
                } catch (IOException e) {
                    // No node answered: the next read tries again.
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    Thread.sleep(EVERY_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return this;
    }

    /** One read of the pool; every machine it shows replaces what was known of it. */
    void refresh() throws IOException, InterruptedException {
        JsonNode pool = api.call("GET", "/v0/pools/" + Cluster.POOL, null);
        Instant at = Instant.now();
        synchronized (this) {
            for (JsonNode m : pool.path("machines")) machines.put(m.path("uuid").asText(), m);
            lastRead = at;
        }
    }

    /** Every machine seen, as last seen, oldest start first. */
    synchronized List<JsonNode> machines() {
        return new ArrayList<>(machines.values());
    }

    /** Machines as last seen that match. */
    synchronized List<JsonNode> machines(Predicate<JsonNode> which) {
        return machines.values().stream().filter(which).toList();
    }

    /** When the pool was last read. */
    synchronized Instant lastRead() {
        return lastRead;
    }

    static boolean live(JsonNode machine) {
        return LIVE.contains(machine.path("state").asText());
    }

    static Instant instant(JsonNode machine, String field) {
        return machine.hasNonNull(field) ? Instant.parse(machine.path(field).asText()) : null;
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        if (thread != null) {
            thread.interrupt();
            thread.join();
        }
    }
}
