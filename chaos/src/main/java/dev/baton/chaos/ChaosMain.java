package dev.baton.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code scripts/chaos}: one chaos run from the command line; exit 0 when every rule held, 1 when one broke. */
@Command(
        name = "chaos",
        mixinStandardHelpOptions = true,
        description =
                "Runs real Baton servers and runners under random faults and audits every job (docs/reliability.md).")
public final class ChaosMain implements Callable<Integer> {
    @Option(
            names = "--database",
            defaultValue = "sqlite",
            description = "sqlite or postgresql (default ${DEFAULT-VALUE})")
    String database;

    @Option(names = "--nodes", defaultValue = "1", description = "server nodes on the database (SQLite: 1)")
    int nodes;

    @Option(
            names = "--minutes",
            defaultValue = "1",
            description = "length of the fault phase in minutes (fractions allowed)")
    double minutes;

    @Option(names = "--runners", defaultValue = "3", description = "runner agents")
    int runners;

    @Option(names = "--slots", defaultValue = "2", description = "jobs at a time per runner")
    int slots;

    @Option(names = "--rate", defaultValue = "2", description = "jobs submitted per second")
    double rate;

    @Option(names = "--fault-every", defaultValue = "5", description = "mean seconds between faults")
    double faultEvery;

    @Option(
            names = "--heartbeat-timeout",
            defaultValue = "3",
            description = "the servers' heartbeat timeout in seconds")
    double heartbeatTimeout;

    @Option(
            names = "--quiesce-timeout",
            defaultValue = "180",
            description = "seconds after the fault phase for every job to end")
    int quiesceTimeout;

    @Option(names = "--seed", description = "random seed (default: a random one, printed)")
    Long seed;

    @Option(names = "--archive", description = "the distribution archive (dist/target/baton-<version>.tar.gz)")
    Path archive;

    @Option(names = "--install", description = "an unpacked distribution instead of --archive")
    Path install;

    @Option(names = "--work-dir", description = "where the run keeps its files (default: a new temporary directory)")
    Path workDir;

    @Option(
            names = "--pg-url",
            defaultValue = "${env:BATON_CHAOS_PG_URL:-postgresql://127.0.0.1:5432/test?user=postgres}",
            description =
                    "PostgreSQL server for --database postgresql; the run makes its own schema there (default ${DEFAULT-VALUE})")
    String pgUrl;

    @Option(names = "--keep", description = "keep the run's PostgreSQL schema")
    boolean keep;

    @Option(
            names = "--transport",
            defaultValue = "websocket",
            description =
                    "the runners' transport: websocket, nats (leases from NATS; starts /usr/sbin/nats-server -js), or mixed (both at once)")
    String transport;

    @Option(
            names = "--pool",
            description = "the pool scenario: no runner agents; a pool of the process provider (max --runners) starts a"
                    + " single-job runner per waiting job, under its faults (the scaler's node killed while a"
                    + " machine boots, every fifth start refused, a runner killed at boot)")
    boolean pool;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ChaosMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Database store = switch (database.toLowerCase(Locale.ROOT)) {
            case "sqlite" -> Database.SQLITE;
            case "postgresql" -> Database.POSTGRESQL;
            default ->
                throw new CommandLine.ParameterException(
                        new CommandLine(this), "--database must be sqlite or postgresql, got '" + database + "'");
        };
        Path work = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("baton-chaos-");
        Path installed = install;
        if (installed == null) {
            if (archive == null)
                throw new CommandLine.ParameterException(new CommandLine(this), "give --archive or --install");
            installed = ChaosRun.unpack(archive, work.resolve("install"));
        }
        ChaosSettings settings;
        try {
            settings = new ChaosSettings(
                    store,
                    nodes,
                    runners,
                    slots,
                    Duration.ofMillis((long) (minutes * 60_000)),
                    Duration.ofMillis((long) (faultEvery * 1000)),
                    rate,
                    Duration.ofMillis((long) (heartbeatTimeout * 1000)),
                    Duration.ofSeconds(quiesceTimeout),
                    seed != null ? seed : ThreadLocalRandom.current().nextLong(),
                    installed,
                    work,
                    pgUrl,
                    keep,
                    Transport.parse(transport),
                    pool);
        } catch (IllegalArgumentException e) { // a bad combination (--nodes 2 on SQLite): exit 2, like any wrong option
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
        ChaosResult result = new ChaosRun(settings, System.err).run();
        System.out.print(result.describe());
        System.out.println(result.passed() ? "PASSED" : "FAILED");
        System.out.println("files of this run: " + work);
        return result.passed() ? 0 : 1;
    }
}
