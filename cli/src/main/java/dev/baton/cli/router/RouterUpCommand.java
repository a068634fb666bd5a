package dev.baton.cli.router;

import dev.baton.cli.runner.UpCommand;
import dev.baton.cli.runner.UpCommand.DurationConverter;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.Router;
import dev.baton.router.RouterSettings;
import dev.baton.router.policy.FirstCome;
import dev.baton.router.policy.PolicyFile;
import dev.baton.router.policy.SchedulingPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton router up}: connects to the server as the runner {@code --runner} (its own key)
 * and serves the runner channel to the runners listed in {@code --keys-file}. Runs until
 * SIGTERM or SIGINT.
 */
@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        description = {
            "Run the router in the foreground: runners connect to it as to a server (baton runner up --server http://<listen>).",
            "Register the router on the server as one runner of every spec its runners serve; give its runners keys with 'baton router keys add'."
        })
public final class RouterUpCommand implements Callable<Integer> {
    private static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--server",
            defaultValue = "${env:BATON_SERVER:-http://127.0.0.1:7700}",
            description = "Baton server URL (default ${DEFAULT-VALUE})")
    URI server;

    @Option(names = "--runner", required = true, description = "The router's runner (name or UUID) on the server")
    String runner;

    @Option(names = "--key", description = "The router's runner key (prefer --key-file or BATON_ROUTER_KEY)")
    String key;

    @Option(names = "--key-file", description = "File holding the router's runner key")
    Path keyFile;

    @Option(
            names = "--listen",
            defaultValue = "127.0.0.1:7710",
            description = "host:port runners connect to (default ${DEFAULT-VALUE})")
    String listen;

    @Option(
            names = "--keys-file",
            defaultValue = "router-keys",
            description = "Hashed keys of the runners behind the router (default ${DEFAULT-VALUE})")
    Path keysFile;

    @Option(
            names = "--policy-file",
            description =
                    "Scheduling policy (properties: policy = first-come | fair-share, weight.<project uuid> = n); default first-come")
    Path policyFile;

    @Option(
            names = "--state-dir",
            defaultValue = ".baton/router",
            description = "The outbox of results owed to the server (default ${DEFAULT-VALUE})")
    Path stateDir;

    @Option(
            names = "--acceptance-window",
            defaultValue = "30s",
            converter = DurationConverter.class,
            description = "A held job no runner starts within this is declined upstream (default ${DEFAULT-VALUE})")
    Duration acceptanceWindow;

    @Option(
            names = "--heartbeat-timeout",
            defaultValue = "30s",
            converter = DurationConverter.class,
            description = "A runner silent this long is lost (default ${DEFAULT-VALUE})")
    Duration heartbeatTimeout;

    @Option(
            names = "--max-message-bytes",
            defaultValue = "16777216",
            description =
                    "Largest channel message, either way: the server's request_body_max_bytes (default ${DEFAULT-VALUE}, the server's default)")
    int maxMessageBytes;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        RunnerKey routerKey;
        try {
            routerKey = UpCommand.readKey(keyFile, "BATON_ROUTER_KEY", key, w -> err.println("baton router up: " + w));
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        if (!"http".equals(server.getScheme()) && !"https".equals(server.getScheme()))
            return usage(err, "--server must be an http(s) URL");
        int colon = listen.lastIndexOf(':');
        if (colon < 1) return usage(err, "--listen must be host:port");
        String host = listen.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(listen.substring(colon + 1));
        } catch (NumberFormatException e) {
            return usage(err, "--listen must be host:port");
        }
        if (!Files.exists(keysFile))
            return usage(
                    err,
                    "no keys file " + keysFile
                            + ": add a runner first with 'baton router keys add <name> --spec <spec>'");
        SchedulingPolicy policy;
        try {
            policy = policyFile == null ? new FirstCome() : PolicyFile.read(policyFile);
        } catch (IOException | IllegalArgumentException e) {
            return usage(err, "--policy-file " + policyFile + ": " + e.getMessage());
        }
        if (acceptanceWindow.isNegative()
                || acceptanceWindow.isZero()
                || heartbeatTimeout.isNegative()
                || heartbeatTimeout.isZero()) {
            return usage(err, "--acceptance-window and --heartbeat-timeout must be positive");
        }
        if (maxMessageBytes < 64 << 10) return usage(err, "--max-message-bytes must be at least 65536");
        RouterSettings settings = RouterSettings.defaults(runner)
                .withAcceptanceWindow(acceptanceWindow)
                .withHeartbeatTimeout(heartbeatTimeout)
                .withMaxMessageBytes(maxMessageBytes);
        Files.createDirectories(stateDir);
        Router router = Router.start(
                new Router.Options(
                        server, runner, routerKey, host, port, keysFile, stateDir.toAbsolutePath(), policy, settings),
                Clock.systemUTC());
        spec.commandLine()
                .getOut()
                .println("baton router listening on " + host + ":" + router.port() + "; status at http://" + host + ":"
                        + router.port() + "/");
        spec.commandLine().getOut().flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            router.close();
            stopped.countDown();
        }));
        stopped.await();
        return 0;
    }

    private static int usage(PrintWriter err, String message) {
        err.println("baton router up: " + message);
        return USAGE;
    }
}
