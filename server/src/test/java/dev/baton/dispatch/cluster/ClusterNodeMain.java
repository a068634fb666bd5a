package dev.baton.dispatch.cluster;

import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A whole server node in its own JVM, for tests that kill a node with SIGKILL: started by
 * {@link ClusterTest} from the test classpath. Arguments: database URL, data dir, node id,
 * admin token, heartbeat timeout and node timeout in milliseconds. Prints {@code PORT <n>} once
 * it listens, then runs until killed.
 */
public final class ClusterNodeMain {
    private ClusterNodeMain() {}

    public static void main(String[] args) throws Exception {
        ServerConfig config = ClusterTest.nodeConfig(
                args[0],
                Path.of(args[1]),
                args[2],
                args[3],
                Duration.ofMillis(Long.parseLong(args[4])),
                Duration.ofMillis(Long.parseLong(args[5])));
        BatonServer server = ServerAssembly.start(config);
        System.out.println("PORT " + server.port());
        System.out.flush();
        Thread.currentThread().join();
    }
}
