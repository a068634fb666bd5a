package dev.baton.router.testing;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.Router;
import dev.baton.router.RouterSettings;
import dev.baton.router.policy.FirstCome;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * A router in a JVM of its own, so a test can kill it with SIGKILL. Arguments: server URL,
 * router runner slug, port, keys file, state directory; the upstream key comes in
 * {@code BATON_TEST_ROUTER_KEY}. Prints {@code listening <port>} once it serves.
 */
public final class RouterMain {
    public static void main(String[] args) throws Exception {
        var settings = RouterSettings.defaults(args[1]).withHeartbeatTimeout(Duration.ofSeconds(3));
        Router router = Router.start(
                new Router.Options(
                        URI.create(args[0]),
                        args[1],
                        RunnerKey.parse(System.getenv("BATON_TEST_ROUTER_KEY")),
                        "127.0.0.1",
                        Integer.parseInt(args[2]),
                        Path.of(args[3]),
                        Path.of(args[4]),
                        new FirstCome(),
                        settings),
                Clock.systemUTC());
        System.out.println("listening " + router.port());
        System.out.flush();
        Thread.currentThread().join();
    }
}
