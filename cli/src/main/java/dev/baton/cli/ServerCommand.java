package dev.baton.cli;

import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.config.ServerConfig;
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
        return serve(options.load(System.getenv()), spec.commandLine().getOut(), spec.commandLine().getErr(), null);
    }

    /** Starts the server, prints where it is, and blocks until the JVM is asked to stop. */
    static int serve(ServerConfig config, PrintWriter out, PrintWriter err, String nextSteps) throws InterruptedException {
        BatonServer server;
        try {
            server = ServerAssembly.start(config);
        } catch (RuntimeException e) {
            err.println("baton: cannot start the server: " + reason(e));
            err.flush();
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "baton-shutdown"));
        out.println(server.banner());
        if (nextSteps != null) out.println(nextSteps);
        out.flush();
        stopped.await();
        return 0;
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
