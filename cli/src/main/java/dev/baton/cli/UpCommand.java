package dev.baton.cli;

import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code baton up}: the one-command local installation. Starts the server on the embedded SQLite
 * file in ./data, a runner for this machine in the same process, and a sample job submitted
 * through the API and followed until it is processed; prints where everything is, then serves
 * until Ctrl-C.
 */
@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        description = "Start Baton locally: server on SQLite in ./data, a local runner, and a sample job.")
final class UpCommand implements Callable<Integer> {
    @Mixin
    ServerOptions options;

    @Option(names = "--no-runner", description = "Start only the server (no local runner, no sample job)")
    boolean noRunner;

    @Option(names = "--no-sample", description = "Start the local runner but submit no sample job")
    boolean noSample;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ServerConfig config = options.load(System.getenv());
        // The banner and the sample's result are for a person; the server's log goes to a file
        // (its path is printed) unless --verbose asks for it here.
        java.nio.file.Path logFile = config.dataDir().resolve("server.log");
        try (ServerLog.Redirect redirect = Baton.verbose(spec)
                ? null
                : ServerLog.toFile(logFile, "json".equals(System.getenv("BATON_LOG_FORMAT")))) {
            return serve(config, out, err, logFile);
        }
    }

    private int serve(ServerConfig config, PrintWriter out, PrintWriter err, java.nio.file.Path logFile)
            throws InterruptedException {
        return ServerCommand.serve(config, out, err, server -> {
            if (!Baton.verbose(spec))
                out.println("  server log:  " + logFile.toAbsolutePath() + " (--verbose: log here instead)");
            LocalInstallation local = null;
            if (!noRunner) {
                try {
                    local = LocalInstallation.start(server.publicUrl(), adminToken(server), config.dataDir());
                    out.println(
                            "Local runner 'local' connected (process executor: it runs your own jobs as this user, without a sandbox).");
                    if (!noSample) printSample(local.runSample(), out);
                } catch (RuntimeException e) {
                    err.println("baton: the local runner could not start: " + ServerCommand.reason(e)
                            + " (the server keeps running)");
                }
            }
            out.println(String.join(
                    System.lineSeparator(),
                    "",
                    "Next, in another terminal (the CLI finds ./data/admin-token by itself):",
                    "  ./baton jobs list --project local",
                    "  ./baton run --project local --spec local --wait -- echo '{\"my-bench\":{\"latency\":{\"value\":42}}}'",
                    "  your own image on a sandboxed runner: README.md, \"Your own benchmark, step by step\"",
                    "  ./baton --help"));
            return local;
        });
    }

    private static void printSample(LocalInstallation.SampleResult sample, PrintWriter out) {
        out.println("Sample job " + sample.job() + ": " + sample.status() + " after "
                + sample.took().toMillis() + " ms");
        if (!sample.stdout().isEmpty()) out.println("  output:  " + sample.stdout());
        if (sample.results() != null) out.println("  results: " + sample.results());
        if (sample.error() != null) out.println("  error:   " + sample.error());
    }

    private static String adminToken(BatonServer server) {
        if (server.adminTokenFile() == null) return server.config().adminToken();
        try {
            return Files.readString(server.adminTokenFile()).strip();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + server.adminTokenFile(), e);
        }
    }
}
