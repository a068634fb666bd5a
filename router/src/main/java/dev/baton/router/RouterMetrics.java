package dev.baton.router;

import dev.baton.protocol.message.DeclineCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;

/** The router's Prometheus metrics, served at {@code /metrics} (names in docs/router.md). */
public final class RouterMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Counter received = Counter.builder("baton_router_jobs_received_total")
            .description("jobs claimed upstream")
            .register(registry);
    private final Counter resent = Counter.builder("baton_router_results_resent_total")
            .description("results resent upstream after a reconnect")
            .register(registry);
    private final Counter forwarded = Counter.builder("baton_router_results_acknowledged_total")
            .description("results the server acknowledged")
            .register(registry);
    private final Counter runnersLost = Counter.builder("baton_router_runner_jobs_lost_total")
            .description("jobs whose runner behind the router was lost")
            .register(registry);
    private final Counter connections = Counter.builder("baton_router_runner_connections_total")
            .description("runner connections accepted")
            .register(registry);
    private final Timer offered = Timer.builder("baton_router_offer_seconds")
            .description("from claimed upstream to offered to a runner")
            .publishPercentileHistogram()
            .register(registry);
    private final Timer accepted = Timer.builder("baton_router_accept_seconds")
            .description("from claimed upstream to running on a runner")
            .publishPercentileHistogram()
            .register(registry);

    public void gauges(Supplier<Number> runners, Supplier<Number> jobs, Supplier<Number> upstream) {
        // strong references: Micrometer holds a gauge's object weakly, and these suppliers have no other owner
        Gauge.builder("baton_router_runners_connected", runners, s -> s.get().doubleValue())
                .strongReference(true)
                .register(registry);
        Gauge.builder("baton_router_jobs_held", jobs, s -> s.get().doubleValue())
                .strongReference(true)
                .register(registry);
        Gauge.builder("baton_router_upstream_connected", upstream, s -> s.get().doubleValue())
                .strongReference(true)
                .register(registry);
    }

    void received() {
        received.increment();
    }

    void resent() {
        resent.increment();
    }

    void forwarded() {
        forwarded.increment();
    }

    void runnerLost() {
        runnersLost.increment();
    }

    void runnerConnected() {
        connections.increment();
    }

    void offered(Duration d) {
        offered.record(d);
    }

    void accepted(Duration d, String runner) {
        accepted.record(d);
        Counter.builder("baton_router_jobs_started_total")
                .tag("runner", runner)
                .description("jobs a runner behind the router started")
                .register(registry)
                .increment();
    }

    void upstreamDecline(DeclineCode code) {
        Counter.builder("baton_router_declines_upstream_total")
                .tag("code", code.wireName())
                .register(registry)
                .increment();
    }

    void downstreamDecline(DeclineCode code) {
        Counter.builder("baton_router_runner_declines_total")
                .tag("code", code.wireName())
                .register(registry)
                .increment();
    }

    public String scrape() {
        return registry.scrape();
    }
}
