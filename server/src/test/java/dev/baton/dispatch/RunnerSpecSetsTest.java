package dev.baton.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.StoreCalls;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-node cache of runner spec sets, on a real SQLite store (docs/decisions/0018). */
class RunnerSpecSetsTest {
    @TempDir
    Path dir;

    Store real;
    Store store;
    final MutableClock clock = MutableClock.startingNow();
    final AtomicInteger reads = new AtomicInteger();
    /** Runs once inside the next runnerSpecs read, after the database answered. */
    final AtomicReference<Runnable> duringRead = new AtomicReference<>();

    RunnerSpecSets sets;
    Runner runner;
    Spec first;
    Spec second;

    @BeforeEach
    void open() {
        real = StoreFactory.open("sqlite:" + dir.resolve("baton.db"), dir);
        store = countingRunnerSpecReads(real);
        sets = new RunnerSpecSets(store, clock);
        store.specs().onSpecsChange(sets::invalidate);
        store.organizations().createOrganization("Org", Slug.of("org"), PlanTier.TEAM, clock.instant());
        first = store.specs()
                .createSpec(
                        "first", Slug.of("first"), Architecture.X86_64, 1, 1L << 30, 1L << 30, false, clock.instant());
        second = store.specs()
                .createSpec(
                        "second",
                        Slug.of("second"),
                        Architecture.X86_64,
                        1,
                        1L << 30,
                        1L << 30,
                        false,
                        clock.instant());
        runner = store.runners().createRunner("r", Slug.of("r"), "hash", clock.instant());
        store.specs().addRunnerSpec(runner.id(), first.id());
    }

    @AfterEach
    void close() {
        real.close();
    }

    @Test
    void aRunnersSetIsReadOnceAndAgainAfterEachChangeThroughTheStore() {
        assertThat(sets.activeIds(runner.id())).containsExactly(first.id());
        assertThat(sets.of(runner.id())).extracting(Spec::id).containsExactly(first.id());
        assertThat(reads).hasValue(1);

        store.specs().addRunnerSpec(runner.id(), second.id());
        assertThat(sets.activeIds(runner.id())).containsExactlyInAnyOrder(first.id(), second.id());
        store.specs()
                .updateSpec(
                        second.id(),
                        null,
                        null,
                        true,
                        clock.instant()); // archived: still served by the runner, no longer active
        assertThat(sets.of(runner.id())).extracting(Spec::id).containsExactly(first.id(), second.id());
        assertThat(sets.activeIds(runner.id())).containsExactly(first.id());
        store.specs().removeRunnerSpec(runner.id(), first.id());
        assertThat(sets.of(runner.id())).extracting(Spec::id).containsExactly(second.id());
        assertThat(reads).hasValue(4);
    }

    @Test
    void aChangeNoNotificationToldIsSeenOnceTheEntryIsMaxAgeOld() {
        assertThat(sets.activeIds(runner.id())).containsExactly(first.id());
        // Another process (or a node whose notification was lost) changes the runner's specs.
        try (Store elsewhere = StoreFactory.open("sqlite:" + dir.resolve("baton.db"), dir)) {
            elsewhere.specs().addRunnerSpec(runner.id(), second.id());
        }
        clock.advance(RunnerSpecSets.MAX_AGE.minus(Duration.ofMillis(1)));
        assertThat(sets.activeIds(runner.id())).containsExactly(first.id());
        clock.advance(Duration.ofMillis(1));
        assertThat(sets.activeIds(runner.id())).containsExactlyInAnyOrder(first.id(), second.id());
    }

    @Test
    void aReadThatRacedAnInvalidationIsNeverServed() {
        // The read answers with the old set; the change's invalidation lands before the read stores it.
        duringRead.set(() -> sets.invalidate());
        assertThat(sets.activeIds(runner.id())).containsExactly(first.id());
        assertThat(sets.activeIds(runner.id())).containsExactly(first.id());
        assertThat(reads).as("the raced entry was read again, not served").hasValue(2);
        assertThat(sets.activeIds(runner.id())).containsExactly(first.id());
        assertThat(reads).hasValue(2);
    }

    private Store countingRunnerSpecReads(Store delegate) {
        return StoreCalls.intercept(delegate, (target, method, args) -> {
            try {
                Object result = method.invoke(target, args);
                if (method.getName().equals("runnerSpecs")) {
                    reads.incrementAndGet();
                    Runnable hook = duringRead.getAndSet(null);
                    if (hook != null) hook.run();
                }
                return result;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }
}
