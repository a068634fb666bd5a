package dev.baton.dispatch.channel;

import static dev.baton.server.testing.ChannelFixture.ACCEPTANCE_TIMEOUT;
import static dev.baton.server.testing.ChannelFixture.HEARTBEAT_TIMEOUT;
import static dev.baton.server.testing.ChannelFixture.MAX_MESSAGE_BYTES;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.Router;
import dev.baton.router.RouterKeys;
import dev.baton.router.RouterSettings;
import dev.baton.router.policy.FirstCome;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Spec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The server's whole channel contract ({@link ChannelContractTest}) played again with every runner
 * connected through a {@code baton router} in front of the same server (SQLite), so that each case
 * compares what a runner behind a router gets with what a runner connected to the server gets
 * (docs/router.md: "the runner gets the server's answer"). The router is a real one on real
 * sockets, on the fixture's clock; it is registered at the server as one runner serving every spec
 * of the runners behind it, and gives each runner a key of its own.
 *
 * <p>A case that cannot apply through a router is overridden here, disabled, with the reason. The
 * reasons are of three kinds: the case inspects the server's own view of the runner's connection
 * (its claim transactions and reads per runner, its keys, its stored heartbeat), which through a
 * router is the router's one connection; it speaks to the server's socket directly or restarts
 * the server on another port; it checks something the router documents as its own choice
 * (docs/router.md). The fixture's clock is moved in steps the router keeps up with ({@link #advance}).
 */
@Tag("slow")
class RouterChannelTest extends ChannelContractTest {
    private RunnerHandle routerRunner;
    private Router router;
    private final Set<Long> served = new HashSet<>();
    private final Map<Long, RunnerKey> keys = new HashMap<>();

    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }

    /** Through the router: started on first use, serving (upstream) every spec of the runners that connect behind it. */
    @Override
    TestRunner open(RunnerHandle handle) {
        List<Spec> specs = server.store.specs().runnerSpecs(handle.runner().id());
        if (router == null) {
            routerRunner = server.runner();
            router = Router.start(
                    new Router.Options(
                            server.http(""),
                            routerRunner.runner().slug().value(),
                            RunnerKey.parse(routerRunner.key()),
                            "127.0.0.1",
                            0,
                            dataDir.resolve("router-keys"),
                            dataDir.resolve("router-state"),
                            new FirstCome(),
                            RouterSettings.defaults("router")
                                    .withHeartbeatTimeout(HEARTBEAT_TIMEOUT)
                                    .withAcceptanceWindow(ACCEPTANCE_TIMEOUT)
                                    .withMaxMessageBytes((int) MAX_MESSAGE_BYTES)),
                    server.clock);
        }
        for (Spec s : specs)
            if (served.add(s.id()))
                server.store.specs().addRunnerSpec(routerRunner.runner().id(), s.id());
        RunnerKey key = keys.computeIfAbsent(handle.runner().id(), id -> {
            try {
                return RouterKeys.issue(
                        dataDir.resolve("router-keys"),
                        handle.runner().slug().value(),
                        specs.stream().map(s -> s.slug().value()).toList());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return TestRunner.connect(
                URI.create("ws://127.0.0.1:" + router.port() + "/v0/runners/"
                        + handle.runner().slug().value() + "/channel"),
                key.reveal());
    }

    /**
     * In steps of a third of the server's heartbeat timeout, each one first heard from the router at
     * the new time (its own heartbeat, once a second): a jump past the server's heartbeat timeout
     * would otherwise time out the router's own connection, and a case would pass because the server
     * lost the router rather than because the router did what a server does. The router's timers
     * run on its own ticks at the new time; what they say upstream is awaited by the cases.
     */
    @Override
    void advance(Duration by) {
        Duration left = by;
        while (left.isPositive()) {
            Duration step = left.compareTo(HEARTBEAT_TIMEOUT.dividedBy(3)) < 0 ? left : HEARTBEAT_TIMEOUT.dividedBy(3);
            server.clock.advance(step);
            left = left.minus(step);
            if (router != null) {
                Instant now = server.clock.instant();
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> server.channel()
                                .sessions()
                                .of(routerRunner.runner().id())
                                .map(session -> !session.lastValidMessage().isBefore(now))
                                .orElse(true));
            }
            server.channel().runDueDeadlines();
        }
    }

    @Override
    boolean runnerConnectionsGone() {
        return router == null || router.status().runners().stream().noneMatch(r -> r.connected());
    }

    @AfterEach
    void stopRouter() {
        if (router != null) router.close();
    }

    // ---- cases that cannot apply through a router, with the reason --------------------------------

    @Test
    @Disabled(
            "Server keys: a runner behind a router holds a key of the router's, which the server never sees; RouterKeysTest and docs/router.md cover the router's keys (rotation refuses the old key at once).")
    @Override
    void keyRotationClosesTheOldKeysAccess() {}

    @Test
    @Disabled(
            "Server keys and the server's runner records: a runner behind a router is known to the router's keys file only (RouterKeysTest).")
    @Override
    void archivedRunnerAndMalformedKeysCannotConnect() {}

    @Test
    @Disabled(
            "Speaks to the server's socket with a server key, and the refusal names the server's command (baton runners rotate-key); a router's refusal names its own (baton router keys rotate, docs/router.md).")
    @Override
    void aRefusedUpgradeAnswers401WithTheJsonErrorShape() {}

    @Test
    @Disabled(
            "Speaks to the server's socket directly (raw frames to the server's port), so it would not test the router.")
    @Override
    void overlongUtf8FailsTheConnectionWith1007() {}

    @Test
    @Disabled(
            "The welcome names the runner by its name in the router's keys file, which is also its display name there; the server's display name of a runner record does not exist behind a router.")
    @Override
    void everyConnectionOpensWithAWelcomeNamingTheRunnerAndTheSpecsItServes() {}

    @Test
    @Disabled(
            "Counts the server's claim transactions per waiting runner: through a router the server sees one runner, whose waits the router combines in its own ready.")
    @Override
    void onePumpClaimsForAllItsWaitersInOneTransaction() {}

    @Test
    @Disabled(
            "Counts the server's pending reads per waiting runner connection: through a router the server sees one runner connection, whose ready the router renews on its own schedule.")
    @Override
    void dispatchAsksWhetherAnythingIsPendingOnlyWhenItCannotKnow() {}

    @Test
    @Disabled(
            "Reads the server's stored last_heartbeat of the runner's own record: through a router the server keeps the router's.")
    @Override
    void heartbeatsLiveInMemoryAndReachTheDatabaseInBatches() {}

    @Test
    @Disabled(
            "A router offers a job a runner declined to another runner behind it under the same attempt and lease (docs/router.md, 'How a job passes through'), so the second runner sees attempt 1, not 2; the server's decline rules apply when the router declines upstream (RouterProtocolTest).")
    @Override
    void aDeclinedJobGoesToAnotherRunner() {}

    @Test
    @Disabled(
            "Needs the declined job handed back to the runners that declined it one by one: the server does not hand a job back to the runner (the router) that declined it, so through one router the bound is never reached (protocol.md, 'Declines').")
    @Override
    void requeuesAreBounded() {}

    @Test
    @Disabled(
            "The fixture restarts the server on another port, where a router started with the first one cannot follow; RouterFaultTest restarts a server on its port behind a router.")
    @Override
    void serverShutdownMidJobKeepsTheJob() {}

    @Test
    @Disabled(
            "The fixture restarts the server on another port, where a router started with the first one cannot follow; RouterFaultTest restarts a server on its port behind a router.")
    @Override
    void startupRecoveryOfClaimedRunningAndCompletedUnprocessedJobs() {}
}
