package dev.baton.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Unmeasured rounds before a measured phase, repeated until the JIT has compiled the phase's
 * path. A cold server's lifecycle spends most of a 2-core machine compiling: in a profile of the
 * first lifecycle round, compiler threads took a third of the CPU, and 6,000 jobs later they
 * still took 30 s of compile time in 36 s. A server runs for days; the measured figure is the
 * warm one, as the transport floor's (which runs in a JVM the earlier phases warmed) already is.
 */
final class WarmUp {
    /** Settled when the round's compile time is at most this share of its wall time. */
    static final double SETTLED_SHARE = 0.10;

    /**
     * Most rounds before measuring anyway; {@code -Dbaton.bench.warmupRounds=N} lowers it for
     * quick interleaved runs on a loaded machine, where compiling never settles.
     */
    static final int MAX_ROUNDS = Integer.getInteger("baton.bench.warmupRounds", 10);

    interface Round {
        void run() throws Exception;
    }

    private WarmUp() {}

    /**
     * Warms the lifecycle and then the transport floor at {@code runners} runners, each until
     * compiling settles, before either is measured; a smoke run skips it.
     */
    static void lifecycleAndFloor(BenchServer server, FloorServer.Sample floor, int runners, BenchOptions o)
            throws Exception {
        if (o.smoke()) return;
        untilCompiled("lifecycle R=" + runners, () -> LifecycleThroughput.run(server, runners, o.slots(), o.jobs()));
        untilCompiled("floor R=" + runners, () -> TransportFloor.run(floor, runners, o.slots(), o.jobs()));
    }

    /** Runs {@code round} until compiling settles (or {@link #MAX_ROUNDS}); returns the rounds run. */
    static int untilCompiled(String what, Round round) throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        for (int i = 1; i <= MAX_ROUNDS; i++) {
            long compilingBefore = jit.getTotalCompilationTime();
            long started = System.nanoTime();
            round.run();
            long wallMillis = (System.nanoTime() - started) / 1_000_000;
            long compileMillis = jit.getTotalCompilationTime() - compilingBefore;
            boolean settled = compileMillis <= SETTLED_SHARE * wallMillis;
            Bench.log("warm-up " + what + ", round " + i + ": " + wallMillis + " ms, JIT compiling " + compileMillis
                    + " ms" + (settled ? " (settled)" : ""));
            if (settled) return i;
        }
        return MAX_ROUNDS;
    }
}
