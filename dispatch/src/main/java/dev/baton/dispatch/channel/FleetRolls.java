package dev.baton.dispatch.channel;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.store.KnownMachine;
import dev.baton.store.NewRoll;
import dev.baton.store.Roll;
import dev.baton.store.RollStep;
import dev.baton.store.Runner;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives fleet upgrades (issue 41, docs/operations.md "Upgrading the fleet"). For each runner of
 * the running roll, in order and at most {@code max_unavailable} at once: {@code drain{quiet}},
 * {@code update}, then wait until it rejoins reporting the roll's version (a machine recorded
 * after the update was sent, on a connection that is open), then {@code drain{running}} and the
 * next. A runner that does not rejoin within the roll's timeout stops the roll, failed, with a
 * reason naming it. Everything the roll knows is in the store and each {@link #tick} reads it
 * afresh, so whichever node holds the roll's lease drives it, and another node resumes it once a
 * dead node's lease expires. Time is the injected clock's.
 */
public final class FleetRolls implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FleetRolls.class);
    /** How often the node looks at the running roll. */
    static final Duration TICK = Duration.ofSeconds(1);

    static final String SYSTEM_ACTOR = "server";

    private final Store store;
    private final RunnerDirectives directives;
    private final String nodeId;
    private final Clock clock;
    private final Duration leaseTtl;
    private ScheduledExecutorService ticker;

    FleetRolls(Store store, RunnerDirectives directives, String nodeId, Clock clock, Duration leaseTtl) {
        this.store = store;
        this.directives = directives;
        this.nodeId = nodeId;
        this.clock = clock;
        this.leaseTtl = leaseTtl;
    }

    /** Looks at the running roll every {@link #TICK} from now on. */
    void start() {
        ticker = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("baton-fleet-roll").daemon().factory());
        ticker.scheduleWithFixedDelay(this::tickQuietly, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        if (ticker != null) ticker.shutdownNow();
    }

    /** Starts a roll over {@code runners} (CONFLICT when one runs already) and takes its first steps at once. */
    public Roll start(NewRoll roll, List<Runner> runners) {
        Roll created =
                store.rolls().createRoll(roll, runners.stream().map(Runner::id).toList(), clock.instant());
        LOG.info(
                "roll {} started: {} runner(s) ({}) to version {}, {} at a time",
                created.uuid(),
                runners.size(),
                roll.target(),
                roll.version(),
                roll.maxUnavailable());
        tickQuietly();
        return store.rolls().findRoll(created.uuid()).orElse(created);
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            // The store may be away: the next tick tries again from what the store holds.
            LOG.warn("fleet roll: {}", e.toString());
        }
    }

    /** One look at the running roll, if this node holds (or takes) its lease: advance it as far as it can go now. */
    public synchronized void tick() {
        Instant now = clock.instant();
        Optional<Roll> leased = store.rolls().leaseRunningRoll(nodeId, now, now.plus(leaseTtl));
        if (leased.isEmpty()) return;
        Roll roll = leased.get();
        int updating = 0;
        for (RollStep step : roll.steps()) {
            if (!RollStep.UPDATING.equals(step.state())) continue;
            if (rejoined(roll, step)) {
                directives.deliver(step.runnerId(), new ServerMessage.Drain(DrainState.RUNNING));
                store.rolls()
                        .updateStep(
                                roll.id(),
                                step.position(),
                                RollStep.DONE,
                                step.fromVersion(),
                                step.started(),
                                now,
                                "rejoined at " + roll.version(),
                                now);
                LOG.info("roll {}: runner {} rejoined at version {}", roll.uuid(), step.runnerSlug(), roll.version());
            } else if (!now.isBefore(step.started().plus(roll.rejoinTimeout()))) {
                fail(
                        roll,
                        step,
                        "runner " + step.runnerSlug() + " did not rejoin at version " + roll.version() + " within "
                                + roll.rejoinTimeout().toSeconds() + " s of being told to update",
                        now);
                return;
            } else {
                updating++;
            }
        }
        for (RollStep step : roll.steps()) {
            if (updating >= roll.maxUnavailable()) break;
            if (!RollStep.PENDING.equals(step.state())) continue;
            if (begin(roll, step, now)) updating++;
        }
        Roll after = store.rolls().findRoll(roll.uuid()).orElseThrow();
        if (after.isRunning() && after.steps().stream().allMatch(RollStep::isFinished)) {
            long done = after.steps().stream()
                    .filter(s -> RollStep.DONE.equals(s.state()))
                    .count();
            String summary = done + " of " + after.steps().size() + " runner(s) updated to " + after.version();
            if (store.rolls().endRoll(after.id(), Roll.SUCCEEDED, null, now)) {
                LOG.info("roll {} succeeded: {}", after.uuid(), summary);
                audit(after, "runner_roll.succeeded", summary, now);
            }
        }
    }

    /** The runner's turn: skipped when already at the version or not connected, else drained and told to update. True when it now updates. */
    private boolean begin(Roll roll, RollStep step, Instant now) {
        Optional<KnownMachine> machine = store.runners().latestMachine(step.runnerId());
        String from = machine.map(m -> m.host().version()).orElse(null);
        if (roll.version().equals(from)) {
            store.rolls()
                    .updateStep(
                            roll.id(),
                            step.position(),
                            RollStep.SKIPPED,
                            from,
                            now,
                            now,
                            "already at " + roll.version(),
                            now);
            return false;
        }
        if (directives.connectedNode(step.runnerId()).isEmpty()) {
            store.rolls()
                    .updateStep(
                            roll.id(),
                            step.position(),
                            RollStep.SKIPPED,
                            from,
                            now,
                            now,
                            "not connected: not updated (update it when it is back)",
                            now);
            LOG.warn("roll {}: runner {} is not connected; skipped", roll.uuid(), step.runnerSlug());
            return false;
        }
        // Drained first, so that it takes no new job while the update waits for the running ones.
        directives.deliver(step.runnerId(), new ServerMessage.Drain(DrainState.QUIET));
        directives.deliver(step.runnerId(), new ServerMessage.Update(roll.version(), roll.url(), roll.checksum()));
        store.rolls()
                .updateStep(
                        roll.id(),
                        step.position(),
                        RollStep.UPDATING,
                        from,
                        now,
                        null,
                        "drained and told to update from " + (from == null ? "an unknown version" : from),
                        now);
        LOG.info("roll {}: runner {} drained and told to update to {}", roll.uuid(), step.runnerSlug(), roll.version());
        return true;
    }

    /** Rejoined: connected now, as a machine the server first saw after the update was sent, reporting the roll's version. */
    private boolean rejoined(Roll roll, RollStep step) {
        Optional<KnownMachine> machine = store.runners().latestMachine(step.runnerId());
        return machine.isPresent()
                && roll.version().equals(machine.get().host().version())
                && !machine.get().seen().isBefore(step.started())
                && directives.connectedNode(step.runnerId()).isPresent();
    }

    private void fail(Roll roll, RollStep step, String reason, Instant now) {
        store.rolls()
                .updateStep(
                        roll.id(),
                        step.position(),
                        RollStep.FAILED,
                        step.fromVersion(),
                        step.started(),
                        now,
                        reason,
                        now);
        if (!store.rolls().endRoll(roll.id(), Roll.FAILED, reason, now)) return;
        // Not left drained: if it is (still, or again) connected, it takes jobs again.
        directives.deliver(step.runnerId(), new ServerMessage.Drain(DrainState.RUNNING));
        LOG.error("roll {} failed: {}", roll.uuid(), reason);
        audit(roll, "runner_roll.failed", reason, now);
    }

    private void audit(Roll roll, String action, String detail, Instant now) {
        try {
            store.access()
                    .appendAudit(
                            now,
                            SYSTEM_ACTOR,
                            null,
                            action,
                            "/v0/runners/rolls/" + roll.uuid(),
                            Wire.mapper()
                                    .writeValueAsString(
                                            Map.of("uuid", roll.uuid().toString(), "reason", detail)),
                            null);
        } catch (JsonProcessingException | RuntimeException e) {
            LOG.warn("audit event {} of roll {} was not recorded: {}", action, roll.uuid(), e.toString());
        }
    }
}
