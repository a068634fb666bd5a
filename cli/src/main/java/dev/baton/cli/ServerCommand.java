package dev.baton.cli;

import dev.baton.server.BatonServer;
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
        return serve(options.load(System.getenv()), spec.commandLine().getOut(), null);
    }

    /** Starts the server, prints where it is, and blocks until the JVM is asked to stop. */
    static int serve(ServerConfig config, PrintWriter out, String nextSteps) throws InterruptedException {
        BatonServer server = BatonServer.builder(config).start();
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
}
