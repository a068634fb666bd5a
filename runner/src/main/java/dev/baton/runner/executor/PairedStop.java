package dev.baton.runner.executor;

import dev.baton.core.adapter.Adapter;
import dev.baton.core.adapter.Adapters;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.paired.PairedSamples;
import dev.baton.core.paired.StoppingRule;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.PairedConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a paired job with {@code until_significant} has run enough pairs (issue 45, decision
 * 0050): the runner reads each side's output with the report's adapter as the pairs come and asks
 * {@link StoppingRule} after every pair; it stops too once the budget has passed. The decision is
 * the runner's because it holds the outputs the moment a pair ends, needs no round trip per pair
 * and works alike over a router and on transport A; the server reads the stored output again for
 * the report, so the runner's parse never becomes a result. A fixed design ({@code pairs} only)
 * has no stop: it runs every pair.
 */
final class PairedStop {
    private static final Logger log = LoggerFactory.getLogger(PairedStop.class);

    private final PairedConfig config;
    private final Adapter adapter;
    private final Clock clock;
    private Instant start;

    private PairedStop(PairedConfig config, Adapter adapter, Clock clock) {
        this.config = config;
        this.adapter = adapter;
        this.clock = clock;
    }

    /** The stop of a sequential paired job, or null (a fixed design or not paired at all). */
    static PairedStop of(PairedConfig config, Clock clock) {
        if (config == null || !config.sequential()) return null;
        Adapter adapter = new Adapters().find(config.adapter()).orElse(null);
        return new PairedStop(config, adapter, clock);
    }

    /** Asked before each pair with the results so far: stop here? */
    boolean enough(List<IterationResult> results) {
        if (start == null) start = clock.instant();
        if (results.isEmpty()) return false;
        if (config.budget() != null && Duration.between(start, clock.instant()).toSeconds() >= config.budget()) {
            log.info("paired job: budget of {} s spent after {} pairs", config.budget(), results.size() / 2);
            return true;
        }
        if (adapter == null) return false; // an adapter this runner does not know: run every pair
        List<Metrics> parsed = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            IterationResult r = results.get(i);
            String text = config.resultsFile() == null
                    ? r.stdout()
                    : r.output() == null ? null : r.output().get(config.resultsFile());
            IterationResults ir =
                    text == null ? IterationResults.failed(i, "no output") : IterationResults.parse(i, adapter, text);
            parsed.add(ir.results());
        }
        var series = PairedSamples.series(PairedSamples.pairs(config, parsed));
        boolean decided = StoppingRule.decided(series, config.minEffectOrDefault());
        if (decided) log.info("paired job: every metric decided after {} pairs", results.size() / 2);
        return decided;
    }
}
