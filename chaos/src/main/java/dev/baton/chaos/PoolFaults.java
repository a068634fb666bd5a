package dev.baton.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * The pool scenario's faults (docs/reliability.md, "The pool scenario"), each aimed at a machine
 * that is booting, as {@link PoolWatch} sees it: the scaler's node killed while a machine boots,
 * and a machine's runner killed before it registered. The provider's refused starts come from
 * the pool's command itself ({@code pool-runner.sh}, every fifth start).
 */
final class PoolFaults {
    /** How long a fault waits for a machine to boot before it is given up (then it is not recorded). */
    private static final Duration AIM = Duration.ofSeconds(60);
    /** How long a killed scaler node of several stays down waiting for another node to start a machine. */
    private static final Duration TAKEOVER = Duration.ofSeconds(60);
    /** How long the killed node has to be ready again. */
    private static final Duration RESTART = Duration.ofMinutes(5);

    /**
     * One kill of the scaler's node.
     *
     * @param node      the killed node's id ({@code chaos-node-<i>})
     * @param at        when it was killed
     * @param booting   the machines of that node that were starting then
     * @param takenOver when another node started a machine after the kill (null: none did while it was down)
     */
    record ScalerKill(String node, Instant at, List<String> booting, Instant takenOver) {}

    private final Cluster cluster;
    private final PoolWatch watch;
    private final Random random;
    private final List<ScalerKill> scalerKills = new ArrayList<>();

    PoolFaults(Cluster cluster, PoolWatch watch, Random random) {
        this.cluster = cluster;
        this.watch = watch;
        this.random = random;
    }

    List<ScalerKill> scalerKills() {
        return scalerKills;
    }

    /**
     * SIGKILL of the node that started the newest booting machine (so the one holding the scaler
     * lease). With several nodes it stays down until another node starts a machine, which it can
     * only once the lease moved to it (at most 60 s); alone it is started again 0.5–2 s later.
     */
    Optional<FaultEvent> killScalerNode() throws IOException, InterruptedException {
        Optional<JsonNode> aim = await(m -> "starting".equals(m.path("state").asText()));
        if (aim.isEmpty()) return Optional.empty();
        String nodeId = aim.get().path("node").asText();
        ServerNode node = cluster.nodes().stream()
                .filter(n -> ("chaos-node-" + n.index()).equals(nodeId))
                .findFirst()
                .orElse(null);
        if (node == null) return Optional.empty();
        Instant at = Instant.now();
        node.process().kill();
        List<String> booting = watch
                .machines(m -> "starting".equals(m.path("state").asText())
                        && nodeId.equals(m.path("node").asText()))
                .stream()
                .map(m -> m.path("uuid").asText())
                .toList();
        Instant takenOver = null;
        if (cluster.nodes().size() > 1) {
            Instant deadline = at.plus(TAKEOVER);
            while (takenOver == null && Instant.now().isBefore(deadline)) {
                Thread.sleep(250);
                takenOver = watch
                        .machines(m -> !nodeId.equals(m.path("node").asText())
                                && PoolWatch.instant(m, "started").isAfter(at))
                        .stream()
                        .map(m -> PoolWatch.instant(m, "started"))
                        .min(Instant::compareTo)
                        .orElse(null);
            }
        } else {
            Thread.sleep(500 + random.nextInt(1500));
        }
        node.process().start();
        // A restart on a loaded host (other builds, four runner JVMs booting) has taken over 2 min.
        cluster.awaitReady(node, RESTART);
        scalerKills.add(new ScalerKill(nodeId, at, booting, takenOver));
        return Optional.of(new FaultEvent(
                FaultEvent.Kind.SCALER_NODE_SIGKILL, node.process().name(), at, Instant.now(), 1));
    }

    /** SIGKILL of the runner process of a machine still starting (its provider id known, the process the pool's). */
    Optional<FaultEvent> killRunnerAtBoot() throws InterruptedException {
        Instant deadline = Instant.now().plus(AIM);
        while (Instant.now().isBefore(deadline)) {
            for (JsonNode m :
                    watch.machines(x -> "starting".equals(x.path("state").asText()) && x.hasNonNull("provider_id"))) {
                Optional<ProcessHandle> runner =
                        PoolProcesses.runner(m.path("provider_id").asText(), cluster.poolDir());
                if (runner.isPresent()) {
                    Instant at = Instant.now();
                    runner.get().destroyForcibly();
                    return Optional.of(new FaultEvent(
                            FaultEvent.Kind.POOL_RUNNER_SIGKILL_AT_BOOT,
                            m.path("uuid").asText(),
                            at,
                            at,
                            1));
                }
            }
            Thread.sleep(100);
        }
        return Optional.empty();
    }

    private Optional<JsonNode> await(java.util.function.Predicate<JsonNode> which) throws InterruptedException {
        Instant deadline = Instant.now().plus(AIM);
        while (Instant.now().isBefore(deadline)) {
            List<JsonNode> found = watch.machines(which);
            if (!found.isEmpty())
                return Optional.of(found.stream()
                        .max((a, b) -> PoolWatch.instant(a, "started").compareTo(PoolWatch.instant(b, "started")))
                        .orElseThrow());
            Thread.sleep(100);
        }
        return Optional.empty();
    }
}
