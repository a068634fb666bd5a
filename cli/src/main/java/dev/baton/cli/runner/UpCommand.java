package dev.baton.cli.runner;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.PollTimeout;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.connection.PullTokenRequests;
import dev.baton.runner.executor.Executor;
import dev.baton.runner.executor.MicroVmSetup;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.executor.RuncExecutor;
import dev.baton.runner.lease.LeaseRunner;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.machine.RunnerMachine;
import dev.baton.runner.noise.NoiseProbe;
import dev.baton.runner.oci.RegistryBlobSource;
import dev.baton.runner.update.SelfUpdater;
import dev.baton.runner.update.Updater;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton runner up}: connects this machine to a Baton server and runs jobs until stopped.
 * The key comes from {@code --key-file}, {@code BATON_RUNNER_KEY} or {@code --key} (in that order
 * of preference; {@code --key} is visible in the process list) and is never printed.
 */
@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        description = {
            "Connect to a Baton server and run jobs until SIGTERM/SIGINT.",
            "Signals: SIGTERM/SIGINT finish in-flight jobs within the grace period, then cancel and report the rest, then exit;",
            "SIGTSTP takes no new jobs; SIGCONT takes jobs again."
        })
public final class UpCommand implements Callable<Integer> {
    /** Exit status for bad arguments (picocli's convention). */
    static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--server",
            defaultValue = "${env:BATON_SERVER:-http://127.0.0.1:7700}",
            description = "Server URL, e.g. https://baton.example.com (env BATON_SERVER; default ${DEFAULT-VALUE})")
    URI server;

    @Option(names = "--runner", required = true, description = "This runner's name (slug) or UUID")
    String runner;

    @Option(
            names = "--key",
            description = "Runner key (prefer --key-file or BATON_RUNNER_KEY: arguments are visible to other users)")
    String key;

    @Option(names = "--key-file", description = "File holding the runner key")
    Path keyFile;

    @Option(names = "--slots", defaultValue = "1", description = "Jobs run at once (default ${DEFAULT-VALUE})")
    int slots;

    @Option(
            names = "--ephemeral",
            description = "Single-job runner: take one job, report it and exit 0 (the runner must be created"
                    + " with ephemeral: true; its key is refused once that job ended; docs/runner.md)")
    boolean ephemeral;

    @Option(
            names = "--label",
            description =
                    "KEY=VALUE this runner reports of itself in ready (e.g. disk=nvme); repeatable (docs/scheduling.md)")
    java.util.Map<String, String> labels;

    @Option(names = "--executor", description = "runc (default where runc is installed), microvm or process")
    String executor;

    @Option(
            names = "--vm-kernel",
            description = "microvm: guest kernel (default: the newest /boot/vmlinuz-* with its modules)")
    Path vmKernel;

    @Option(
            names = "--vm-accel",
            defaultValue = "auto",
            description = "microvm: auto (KVM if a guest boots with it, else TCG), kvm or tcg")
    String vmAccel;

    @Option(
            names = "--allow-no-sandbox",
            description = "Allow the process executor: jobs run as this user, without isolation")
    boolean allowNoSandbox;

    @Option(
            names = "--work-dir",
            defaultValue = ".baton/runner",
            description = "Outbox, image cache and bundles (default ${DEFAULT-VALUE})")
    Path workDir;

    @Option(
            names = "--grace-period",
            defaultValue = "25s",
            converter = DurationConverter.class,
            description = "Time in-flight jobs get to finish after SIGTERM (default ${DEFAULT-VALUE})")
    Duration grace;

    @Option(
            names = "--noise-repetitions",
            defaultValue = "0",
            description = "Timed repetitions of each noise calibration workload, measured at start before taking"
                    + " jobs and reported to the server; 200 is a good count on a benchmark machine (a spec with"
                    + " max_noise_cv takes jobs only from calibrated runners). Default ${DEFAULT-VALUE}: no"
                    + " calibration at start, so an agent that does not run benchmarks starts at once; one the"
                    + " server asks for (baton runners noise) then runs 200")
    int noiseRepetitions;

    @Option(
            names = "--poll-timeout",
            defaultValue = "30",
            description = "Seconds a ready waits for a job (1-900, default ${DEFAULT-VALUE})")
    int pollTimeout;

    @Option(
            names = "--housekeeping-cpu",
            description = "CPU list for the agent itself (default: 0 on machines with more than one CPU)")
    String housekeepingCpus;

    @Option(
            names = "--benchmark-cpus",
            description = "CPU list for the workload (default: all but the housekeeping CPU)")
    String benchmarkCpus;

    @Option(names = "--no-cpu-pinning", description = "Do not pin the agent and the workload to separate CPUs")
    boolean noPinning;

    @Option(
            names = "--no-user-namespace",
            description = "runc: do not map container root to an unprivileged host range")
    boolean noUserNamespace;

    @Option(
            names = "--pids-limit",
            defaultValue = "1024",
            description = "runc: most processes a job may have (default ${DEFAULT-VALUE})")
    int pidsLimit;

    @Option(
            names = "--max-unpack-size",
            description = "runc: the most any image may unpack to on this runner, beside each"
                    + " spec's disk size (e.g. 20GiB; default: the spec's disk size alone)")
    String maxUnpackSize;

    @Option(
            names = "--transport",
            defaultValue = "websocket",
            description =
                    "websocket (the runner channel, default) or nats: leases pulled from NATS JetStream (docs/runner.md, \"The NATS transport\")")
    String transport;

    @Option(
            names = "--nats-url",
            defaultValue = "${env:BATON_NATS_URL}",
            description = "--transport nats: the NATS server, e.g. nats://127.0.0.1:4222 (env BATON_NATS_URL)")
    String natsUrl;

    @Option(
            names = "--max-message-bytes",
            defaultValue = "8388608",
            description = "Largest channel message (default ${DEFAULT-VALUE})")
    int maxMessageBytes;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        RunnerKey runnerKey;
        try {
            runnerKey = readKey();
        } catch (IllegalArgumentException e) {
            err.println("baton runner up: " + e.getMessage());
            return USAGE;
        }
        if (slots < 1) return usage(err, "--slots must be at least 1");
        if (maxMessageBytes < 64 << 10) return usage(err, "--max-message-bytes must be at least 65536");
        if (pollTimeout < PollTimeout.MIN || pollTimeout > PollTimeout.MAX)
            return usage(err, "--poll-timeout must be between 1 and 900");
        if (!"http".equals(server.getScheme()) && !"https".equals(server.getScheme()))
            return usage(err, "--server must be an http(s) URL");
        if (!"websocket".equals(transport) && !"nats".equals(transport))
            return usage(err, "--transport must be websocket or nats");
        if (ephemeral && slots != 1) return usage(err, "--ephemeral takes one job: it runs with one slot");
        if (ephemeral && "nats".equals(transport))
            return usage(err, "--ephemeral is for the runner channel (--transport websocket)");
        if ("nats".equals(transport) && (natsUrl == null || natsUrl.isBlank()))
            return usage(err, "--transport nats needs --nats-url (or BATON_NATS_URL)");
        Optional<Architecture> arch = Architecture.ofHost();
        if (arch.isEmpty())
            return usage(err, "this machine's architecture (" + System.getProperty("os.arch") + ") is not supported");

        CpuPlan cpus =
                CpuPlan.of(Runtime.getRuntime().availableProcessors(), noPinning, housekeepingCpus, benchmarkCpus);
        cpus.pinAgent(err);
        Files.createDirectories(workDir);
        Path dir = workDir.toAbsolutePath();
        Executor exec;
        try {
            exec = executor(dir, arch.get(), cpus.benchmark());
        } catch (IllegalStateException e) {
            return usage(err, e.getMessage());
        }
        Updater updater = SelfUpdater.runningJar()
                .<Updater>map(jar -> new SelfUpdater(
                        () -> HttpClient.newBuilder()
                                .followRedirects(HttpClient.Redirect.NORMAL)
                                .build(),
                        jar,
                        512L << 20))
                .orElse(Updater.unsupported("not running from a jar; cannot self-update"));
        MachineConfig config;
        try {
            config = MachineConfig.defaults(version())
                    .withSlots(slots)
                    .withGrace(grace)
                    .withPollTimeout(pollTimeout)
                    .withMaxMessageBytes(maxMessageBytes)
                    .withLabels(labels)
                    .withSingleJob(ephemeral);
        } catch (IllegalArgumentException e) {
            return usage(err, "--label: " + e.getMessage());
        }
        if ("nats".equals(transport)) {
            LeaseRunner leases = new LeaseRunner(
                    config, new LeaseRunner.Target(server, runner, runnerKey, natsUrl), exec, dir, Clock.systemUTC());
            Signals.install(leases::signal, err);
            return leases.run();
        }
        RunnerAgent agent = new RunnerAgent(
                config,
                new RunnerAgent.Target(server, runner, runnerKey),
                exec,
                new Outbox(dir.resolve("outbox")),
                updater,
                Clock.systemUTC(),
                Duration.ofSeconds(1));
        // At rest a bare heartbeat every 10 s (a third of the default read timeout), not every second (issue 45).
        agent.restTicks(REST_TICKS);
        agent.answerPullTokens(pullTokens);
        if (noiseRepetitions == 1 || noiseRepetitions < 0) return usage(err, "--noise-repetitions: 0 or at least 2");
        // On the CPUs jobs run on, as a job would: the noise that matters is the benchmark cores' (decision 0052).
        // At start only when asked (--noise-repetitions); when the server asks ('baton runners noise', or its
        // schedule) always, with the repetitions given or 200 (decision 0062).
        NoiseProbe probe = new NoiseProbe(
                dir.resolve("noise"),
                noiseRepetitions > 0 ? noiseRepetitions : ON_REQUEST_REPETITIONS,
                cpus.benchmark(),
                600);
        if (noiseRepetitions > 0) agent.calibrateNoise(probe);
        else agent.calibrateOnRequest(probe);
        Signals.install(agent::signal, err);
        int status = agent.run();
        if (status == RunnerMachine.EXIT_RESTART) return Restart.afterUpdate(err);
        return status;
    }

    /** Repetitions of a calibration the server asks for when --noise-repetitions did not give them. */
    public static final int ON_REQUEST_REPETITIONS = 200;

    /** The longest wait between an idle agent's heartbeats (decision 0051); never past a third of the server's read timeout. */
    static final Duration REST_TICKS = Duration.ofSeconds(10);

    /** Fresh pull tokens over the channel for pulls outliving the claim's (issue 41); the NATS transport has none. */
    private final PullTokenRequests pullTokens = new PullTokenRequests();

    private Executor executor(Path dir, Architecture arch, Optional<String> benchmark) {
        String name = executor;
        Optional<String> runcMissing = RuncExecutor.unavailableReason("runc");
        if (name == null) {
            if (runcMissing.isEmpty()) name = "runc";
            else
                throw new IllegalStateException("runc cannot run here (" + runcMissing.get()
                        + "); install runc or use --executor process --allow-no-sandbox for trusted jobs");
        }
        return switch (name) {
            case "process" ->
                new ProcessExecutor(dir, OutputLimits.DEFAULT, benchmark, Clock.systemUTC(), allowNoSandbox);
            case "runc" -> {
                if (runcMissing.isPresent()) throw new IllegalStateException("--executor runc: " + runcMissing.get());
                HttpClient http = HttpClient.newBuilder()
                        .followRedirects(HttpClient.Redirect.NORMAL)
                        .build();
                yield new RuncExecutor(
                        new RuncExecutor.Options(
                                "runc",
                                dir,
                                arch,
                                !noUserNamespace,
                                100_000,
                                pidsLimit,
                                benchmark,
                                OutputLimits.DEFAULT,
                                job -> new RegistryBlobSource(
                                        http,
                                        job.config().registry() == null
                                                ? server.toString()
                                                : job.config().registry(),
                                        job.config().project().toString(),
                                        pullTokens.credentials(job.uuid(), job.lease(), job.ociToken())),
                                unpackCap()),
                        Clock.systemUTC());
            }
            case "microvm" -> {
                HttpClient http = HttpClient.newBuilder()
                        .followRedirects(HttpClient.Redirect.NORMAL)
                        .build();
                yield MicroVmSetup.create(
                        dir,
                        arch,
                        Optional.ofNullable(vmKernel),
                        vmAccel,
                        benchmark,
                        job -> new RegistryBlobSource(
                                http,
                                job.config().registry() == null
                                        ? server.toString()
                                        : job.config().registry(),
                                job.config().project().toString(),
                                pullTokens.credentials(job.uuid(), job.lease(), job.ociToken())),
                        spec.commandLine().getErr()::println);
            }
            default ->
                throw new IllegalStateException("--executor must be runc, microvm or process, got '" + name + "'");
        };
    }

    /** --max-unpack-size in bytes, or no runner-wide cap. */
    long unpackCap() {
        if (maxUnpackSize == null) return RuncExecutor.Options.NO_UNPACK_CAP;
        long bytes = dev.baton.core.config.Sizes.parse(maxUnpackSize);
        if (bytes <= 0)
            throw new IllegalArgumentException("--max-unpack-size must be positive, got '" + maxUnpackSize + "'");
        return bytes;
    }

    /** --key-file, then BATON_RUNNER_KEY, then --key. Errors never include the key. */
    RunnerKey readKey() {
        return readKey(
                keyFile,
                "BATON_RUNNER_KEY",
                key,
                warning -> spec.commandLine().getErr().println("baton runner up: " + warning));
    }

    /**
     * A runner key from {@code keyFile}, else the environment variable {@code env}, else
     * {@code key} (shared with {@code baton router up}, whose own upstream key is a runner key).
     * Errors never include the key; a key file other users can read is warned about.
     */
    public static RunnerKey readKey(Path keyFile, String env, String key, java.util.function.Consumer<String> warn) {
        String text;
        String source;
        if (keyFile != null) {
            try {
                text = Files.readString(keyFile);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read --key-file " + keyFile + ": " + e.getMessage());
            }
            source = "--key-file " + keyFile;
            warnIfShared(keyFile, warn);
        } else if (System.getenv(env) != null) {
            text = System.getenv(env);
            source = env;
        } else if (key != null) {
            text = key;
            source = "--key";
        } else {
            throw new IllegalArgumentException("a runner key is required: --key-file FILE, " + env + ", or --key");
        }
        try {
            return RunnerKey.parse(text.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the key from " + source + " is not a runner key: " + e.getMessage());
        }
    }

    private static void warnIfShared(Path file, java.util.function.Consumer<String> warn) {
        try {
            var perms = Files.getPosixFilePermissions(file);
            if (perms.contains(java.nio.file.attribute.PosixFilePermission.GROUP_READ)
                    || perms.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ)) {
                warn.accept("warning: " + file + " is readable by other users; chmod 600 it");
            }
        } catch (IOException | UnsupportedOperationException e) {
            // nothing to check
        }
    }

    private static int usage(PrintWriter err, String message) {
        err.println("baton runner up: " + message);
        return USAGE;
    }

    public static String version() {
        String v = UpCommand.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }

    /** Durations as "25s", "2m", "500ms" or plain seconds. */
    public static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.strip().toLowerCase(java.util.Locale.ROOT);
            try {
                if (v.endsWith("ms")) return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
                if (v.endsWith("s")) return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
                if (v.endsWith("m")) return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
                return Duration.ofSeconds(Long.parseLong(v));
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration like 25s, 2m or 500ms");
            }
        }
    }
}
