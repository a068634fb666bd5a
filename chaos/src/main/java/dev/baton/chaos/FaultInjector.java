package dev.baton.chaos;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Injects one fault at a time at random intervals: SIGKILL of a runner or of a server node
 * (each started again shortly after), SIGSTOP of a runner for longer than the heartbeat timeout
 * (then SIGCONT), resets of connections at the balancer, and, with several nodes, SIGSTOP of a
 * server node for longer than the node timeout (then SIGCONT); with the NATS transport, SIGKILL of the
 * NATS broker (started again on its store). The pool scenario injects its own kinds instead
 * ({@link PoolFaults}).
 */
final class FaultInjector {
    private final Cluster cluster;
    private final ChaosSettings settings;
    private final Random random;
    private final List<FaultEvent> events = new ArrayList<>();
    private final List<String> unexpectedExits = new ArrayList<>();
    private final PoolFaults pool;

    /** @param pool the pool scenario's faults, or null for the runner agents' scenario */
    FaultInjector(Cluster cluster, ChaosSettings settings, Random random, PoolFaults pool) {
        this.cluster = cluster;
        this.settings = settings;
        this.random = random;
        this.pool = pool;
    }

    List<FaultEvent> events() {
        return events;
    }

    /** Processes found dead that the injector had not killed (each is a finding: it is started again). */
    List<String> unexpectedExits() {
        return unexpectedExits;
    }

    /**
     * Faults come in rounds, each a random order of every kind, so even a short run injects each
     * kind once within its first four faults; the first round ends even past {@code until}.
     */
    void run(Instant until) throws IOException, InterruptedException {
        long mean = settings.faultInterval().toMillis();
        List<FaultEvent.Kind> kinds = pool != null
                ? FaultEvent.Kind.injectedInPool()
                : FaultEvent.Kind.injected(
                        settings.nodes(), settings.transport().broker());
        List<FaultEvent.Kind> round = new ArrayList<>();
        int tried = 0;
        while (true) {
            Thread.sleep(mean / 2 + (long) (random.nextDouble() * mean));
            // The first round is always finished, so a slow machine still sees every kind (a pool
            // fault finds no booting machine once the queue drained: it is tried, not waited for).
            if (Instant.now().isAfter(until) && (pool != null ? tried : events.size()) >= kinds.size()) return;
            tried++;
            reviveUnexpectedExits();
            if (round.isEmpty()) {
                round.addAll(kinds);
                Collections.shuffle(round, random);
            }
            switch (round.remove(0)) {
                case RUNNER_SIGKILL -> killRunner();
                case SERVER_SIGKILL -> killServer();
                case RUNNER_SIGSTOP -> stopRunner();
                case CONNECTIONS_DROPPED -> dropConnections();
                case SERVER_SIGSTOP -> freezeServer();
                case BROKER_SIGKILL -> killBroker();
                case SCALER_NODE_SIGKILL -> pool.killScalerNode().ifPresent(events::add);
                case POOL_RUNNER_SIGKILL_AT_BOOT -> pool.killRunnerAtBoot().ifPresent(events::add);
            }
        }
    }

    private RunnerAgent someRunner() {
        return cluster.runners().get(random.nextInt(cluster.runners().size()));
    }

    private void killRunner() throws IOException, InterruptedException {
        RunnerAgent r = someRunner();
        Instant at = Instant.now();
        r.process().kill();
        Thread.sleep(random.nextInt(1000));
        r.process().start();
        events.add(new FaultEvent(FaultEvent.Kind.RUNNER_SIGKILL, r.slug(), at, Instant.now(), 1));
    }

    private void killServer() throws IOException, InterruptedException {
        ServerNode n = cluster.nodes().get(random.nextInt(cluster.nodes().size()));
        Instant at = Instant.now();
        n.process().kill();
        Thread.sleep(500 + random.nextInt(1500));
        n.process().start();
        cluster.awaitReady(n, Duration.ofMinutes(2));
        events.add(new FaultEvent(FaultEvent.Kind.SERVER_SIGKILL, n.process().name(), at, Instant.now(), 1));
    }

    private void stopRunner() throws IOException, InterruptedException {
        RunnerAgent r = someRunner();
        Instant at = Instant.now();
        r.process().freeze();
        Thread.sleep(settings.runnerFreeze().toMillis());
        r.process().thaw();
        events.add(new FaultEvent(FaultEvent.Kind.RUNNER_SIGSTOP, r.slug(), at, Instant.now(), 1));
    }

    /**
     * The frozen node keeps its sockets: its runners' messages queue on their connections and are
     * read after SIGCONT, when the other nodes have found it dead (node timeout) and run the jobs
     * with retries again. The audit then checks that no late word of a moved attempt changed the
     * output of the attempt that completed.
     */
    private void freezeServer() throws IOException, InterruptedException {
        ServerNode n = cluster.nodes().get(random.nextInt(cluster.nodes().size()));
        Instant at = Instant.now();
        n.process().freeze();
        Thread.sleep(cluster.nodeTimeout().toMillis() + 2000 + random.nextInt(2000));
        n.process().thaw();
        events.add(new FaultEvent(FaultEvent.Kind.SERVER_SIGSTOP, n.process().name(), at, Instant.now(), 1));
    }

    private void killBroker() throws IOException, InterruptedException {
        BrokerProcess b = cluster.broker();
        Instant at = Instant.now();
        b.kill();
        Thread.sleep(500 + random.nextInt(1500));
        b.start();
        events.add(new FaultEvent(FaultEvent.Kind.BROKER_SIGKILL, "nats-server", at, Instant.now(), 1));
    }

    private void dropConnections() {
        Instant at = Instant.now();
        int cut = cluster.balancer().drop(0.3 + random.nextDouble() * 0.7, random);
        events.add(new FaultEvent(FaultEvent.Kind.CONNECTIONS_DROPPED, "balancer", at, at, cut));
    }

    /** Before the next fault and at the end: every process is up and not frozen. */
    void reviveUnexpectedExits() throws IOException, InterruptedException {
        BrokerProcess broker = cluster.broker();
        if (broker != null && !broker.alive()) {
            unexpectedExits.add("nats-server at " + Instant.now());
            broker.start();
        }
        for (ServerNode n : cluster.nodes()) {
            if (n.process().stopped()) n.process().thaw();
            if (!n.process().alive()) {
                unexpectedExits.add(n.process().name() + " at " + Instant.now());
                n.process().start();
                cluster.awaitReady(n, Duration.ofMinutes(2));
            }
        }
        for (RunnerAgent r : cluster.runners()) {
            if (r.process().stopped()) r.process().thaw();
            if (!r.process().alive()) {
                unexpectedExits.add(r.slug() + " at " + Instant.now());
                r.process().start();
            }
        }
    }
}
