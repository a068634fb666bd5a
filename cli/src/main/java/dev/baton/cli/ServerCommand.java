package dev.baton.cli;

import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code baton server}: runs the server until interrupted (Ctrl-C, SIGTERM), then stops gracefully. */
@Command(name = "server", mixinStandardHelpOptions = true, description = "Run the Baton server.")
final class ServerCommand implements java.util.concurrent.Callable<Integer> {
    @Mixin
    ServerOptions options;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        return serve(
                options.load(System.getenv()),
                spec.commandLine().getOut(),
                spec.commandLine().getErr(),
                server -> null);
    }

    /** What to do once the server listens (after its banner); returns what else to close on stop, or null. */
    @FunctionalInterface
    interface AfterStart {
        AutoCloseable run(BatonServer server);
    }

    /** Starts the server, prints where it is, runs {@code afterStart}, and blocks until the JVM is asked to stop. */
    static int serve(ServerConfig config, PrintWriter out, PrintWriter err, AfterStart afterStart)
            throws InterruptedException {
        BatonServer server;
        try {
            server = ServerAssembly.start(config);
        } catch (RuntimeException e) {
            err.println("baton: cannot start the server: " + reason(e) + portHint(e, config));
            err.flush();
            return 1;
        }
        out.println(server.banner());
        out.flush();
        AutoCloseable extra = afterStart.run(server);
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                if (extra != null) extra.close();
                            } catch (Exception e) {
                                err.println("baton: stopping: " + reason(e));
                            }
                            server.close();
                            stopped.countDown();
                        },
                        "baton-shutdown"));
        stopped.await();
        return 0;
    }

    /** A taken port is the usual reason a second server cannot start; say how to choose another. */
    static String portHint(Throwable e, ServerConfig config) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
            if (t instanceof java.net.BindException
                    || m.contains("address already in use")
                    || m.contains("port already in use")) {
                return " (port " + config.port() + " on " + config.host() + " is taken: another Baton may be running;"
                        + " pick another with --port, or --port 0 for any free one)";
            }
        }
        return "";
    }

    /** The messages of the cause chain, without stack traces: port in use, database unreachable, … */
    static String reason(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (b.indexOf(m) < 0) b.append(b.isEmpty() ? "" : ": ").append(m);
        }
        return b.toString();
    }
}
