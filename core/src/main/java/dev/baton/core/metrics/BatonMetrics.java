package dev.baton.core.metrics;

import dev.baton.protocol.job.PlanTier;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Baton's Prometheus meters, named in one place. Queue time is recorded when a job starts
 * running, by priority tier (seed 001's job.queue.duration), to watch for starvation.
 */
public final class BatonMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> pendingByReason = new ConcurrentHashMap<>();

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public String scrape() {
        for (Runnable r : beforeScrape) {
            try {
                r.run();
            } catch (RuntimeException e) {
                // A failed refresh leaves the last values; the scrape itself must still answer.
            }
        }
        return registry.scrape();
    }

    /**
     * {@code baton.jobs.pending{reason}}: pending jobs by pending_reason code, recomputed from
     * {@code counts} (every code, zero included) at each scrape rather than on every job event.
     */
    public void pendingByReason(List<String> codes, Supplier<Map<String, Integer>> counts) {
        beforeScrape.add(() -> pendingByReason.putAll(counts.get()));
        for (String code : codes) {
            pendingByReason.putIfAbsent(code, 0);
            Gauge.builder("baton.jobs.pending", () -> pendingByReason.getOrDefault(code, 0))
                    .description("Pending jobs by the reason they wait (pending_reason.code)")
                    .tag("reason", code)
                    .register(registry);
        }
    }

    /**
     * {@code baton.job.minutes}: minutes of run time billed, by organization and project slug
     * (issue 41). Counted by the node whose billing raised the job's minutes, so each minute once
     * across nodes: sum over instances.
     */
    public void jobMinutes(String organization, String project, int minutes) {
        Counter.builder("baton.job.minutes")
                .description("Minutes of run time billed, by organization and project")
                .tag("organization", organization)
                .tag("project", project)
                .register(registry)
                .increment(minutes);
    }

    /** A runner declined a job, by decline code. */
    public void declined(String code) {
        Counter.builder("baton.job.declines")
                .description("Declines by runners, by decline code")
                .tag("code", code)
                .register(registry)
                .increment();
    }

    /**
     * One report judged against its project's thresholds (docs/alerts.md, "Judging"; issue 44):
     * {@code origin} {@code processed} (a runner run, on the judging thread) or {@code sweep}.
     */
    public void judged(String origin, Duration took) {
        Timer.builder("baton.judge.duration")
                .description("Time to judge one report against its project's thresholds, by origin")
                .tag("origin", origin)
                .publishPercentileHistogram()
                .register(registry)
                .record(took);
    }

    public void queueDuration(int priority, Duration queued) {
        DistributionSummary.builder("baton.job.queue.duration")
                .description("Seconds from submission to running, by priority tier")
                .baseUnit("seconds")
                .tag("priority_tier", PlanTier.ofPriority(priority).wireName())
                .publishPercentileHistogram()
                .register(registry)
                .record(queued.toNanos() / 1e9);
    }

    /** This node quarantined a runner (docs/scheduling.md); the gauge baton_cluster_runners_quarantined says how many are. */
    public void quarantined() {
        Counter.builder("baton.runner.quarantines")
                .description("Runners quarantined by this node for infrastructure failures")
                .register(registry)
                .increment();
    }

    /** A runner's channel was closed on connect, by reason ({@code connect_rate}: over its connect limit, issue 41). */
    public void connectRefused(String reason) {
        Counter.builder("baton.runner.connects.refused")
                .description("Runner channel connects refused, by reason")
                .tag("reason", reason)
                .register(registry)
                .increment();
    }

    public void claimed() {
        Counter.builder("baton.runner.job.claims")
                .description("Jobs claimed by runners")
                .register(registry)
                .increment();
    }

    /** A job state change, by kind (start, complete, fail, cancel, requeue, process, timeout_…). */
    public void transition(String kind) {
        Counter.builder("baton.job.transitions")
                .description("Job state transitions by kind")
                .tag("kind", kind)
                .register(registry)
                .increment();
    }

    /** What became of a claim: accepted (running), requeued (declined/lost), acceptance_timeout. */
    public void acceptance(String result) {
        Counter.builder("baton.job.acceptance")
                .description("Outcome of claimed jobs")
                .tag("result", result)
                .register(registry)
                .increment();
    }

    /**
     * {@code baton.ojs.jobs{queue,state}}: Open Job Spec jobs in the store, every node's together
     * (docs/ojs.md), read from {@code counts} (queue, then state) at each scrape; every state of a
     * known queue is reported, zero included.
     */
    public void ojsJobs(List<String> states, Supplier<Map<String, Map<String, Long>>> counts) {
        MultiGauge gauge = MultiGauge.builder("baton.ojs.jobs")
                .description("Open Job Spec jobs in the store (all nodes), by queue and state")
                .register(registry);
        beforeScrape.add(() -> {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            counts.get()
                    .forEach((queue, byState) -> states.forEach(state -> rows.add(MultiGauge.Row.of(
                            Tags.of("queue", queue, "state", state), byState.getOrDefault(state, 0L)))));
            gauge.register(rows, true);
        });
    }

    /**
     * {@code baton_runner_info{runner,os,arch,version,host} 1}: one row per runner connected to this
     * node, with the machine its agent reported (issue 41), read from {@code runners} at each scrape.
     * Each row is a map of those five tags; a tag the runner did not report is empty.
     */
    public void runnerInfo(Supplier<List<Map<String, String>>> runners) {
        MultiGauge gauge = MultiGauge.builder("baton.runner.info")
                .description("Runners connected to this node and the machine each reported")
                .register(registry);
        beforeScrape.add(() -> {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (Map<String, String> r : runners.get()) {
                Tags tags = Tags.empty();
                for (String key : List.of("runner", "os", "arch", "version", "host"))
                    tags = tags.and(key, r.getOrDefault(key, ""));
                rows.add(MultiGauge.Row.of(tags, 1));
            }
            gauge.register(rows, true);
        });
    }

    public void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }
}
