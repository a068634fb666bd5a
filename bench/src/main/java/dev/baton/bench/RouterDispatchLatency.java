package dev.baton.bench;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.Router;
import dev.baton.router.RouterKeys;
import dev.baton.router.RouterSettings;
import dev.baton.router.policy.FirstCome;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * Measurement 1r: measurement 1 with a {@code baton router} between the server and the runner
 * (in this JVM, over loopback sockets): submit → {@code job} at the runner behind the router.
 * The difference to measurement 1 is what the extra hop costs. Standalone:
 * {@code java -cp <bench classpath> dev.baton.bench.RouterDispatchLatency [samples]} runs both on
 * SQLite, direct first.
 */
final class RouterDispatchLatency {
    private RouterDispatchLatency() {}

    static DispatchLatency.Result run(BenchServer server, Path work, int samples, int warmup) throws Exception {
        String spec = "routed";
        server.createSpec(spec);
        BenchServer.Credentials router = server.createRunner("router", spec);
        Path keys = work.resolve("router-keys");
        RunnerKey runnerKey = RouterKeys.issue(keys, "sim", List.of(spec));
        try (Router r = Router.start(
                new Router.Options(
                        server.url(),
                        router.slug(),
                        RunnerKey.parse(router.key()),
                        "127.0.0.1",
                        0,
                        keys,
                        work.resolve("router-state"),
                        new FirstCome(),
                        RouterSettings.defaults(router.slug())),
                Clock.systemUTC())) {
            URI channel = URI.create("ws://127.0.0.1:" + r.port() + "/v0/runners/sim/channel");
            return DispatchLatency.measure(server, spec, channel, runnerKey.reveal(), samples, warmup);
        }
    }

    public static void main(String[] args) throws Exception {
        int samples = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        Path work = Files.createTempDirectory("baton-bench-router-");
        try (BenchServer server = BenchServer.start(work.resolve("server"), null)) {
            var direct = DispatchLatency.run(server, samples, Math.max(3, samples / 10));
            var routed = run(server, work, samples, Math.max(3, samples / 10));
            System.out.println("direct  submit->job " + line(direct.submitToJob()) + "; load "
                    + direct.resources().loadAverage());
            System.out.println("routed  submit->job " + line(routed.submitToJob()) + "; load "
                    + routed.resources().loadAverage());
        }
        System.exit(0);
    }

    private static String line(Summary s) {
        return "n=" + s.count() + " median " + s.medianMs() + " ms, p90 " + s.p90Ms() + " ms, p99 " + s.p99Ms()
                + " ms, max " + s.maxMs() + " ms";
    }
}
