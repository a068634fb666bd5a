package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.Router;
import dev.baton.router.RouterSettings;
import dev.baton.router.policy.FirstCome;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code baton router keys …}, {@code baton router status} and {@code baton router up}'s refusals, as a user runs them. */
class RouterCliTest {
    @TempDir
    Path dir;

    private CliRun.Result baton(String... args) {
        return CliRun.run(CliRun.environment(dir, Map.of()), args);
    }

    @Test
    void keysAreAddedListedRotatedAndRemovedAndOnlyTheirHashesAreKept() throws Exception {
        Path file = dir.resolve("keys");
        CliRun.Result added = baton(
                "router", "keys", "add", "gpu-1", "--spec", "large", "--spec", "small", "--keys-file", file.toString());
        assertThat(added.exit()).as(added.err()).isZero();
        RunnerKey key = RunnerKey.parse(added.out().strip());
        assertThat(Files.readString(file)).contains(key.hash()).doesNotContain(key.reveal());

        assertThat(baton("router", "keys", "list", "--keys-file", file.toString())
                        .out())
                .contains("gpu-1  large,small");

        CliRun.Result rotated = baton("router", "keys", "rotate", "gpu-1", "--keys-file", file.toString());
        RunnerKey next = RunnerKey.parse(rotated.out().strip());
        assertThat(Files.readString(file))
                .contains(next.hash())
                .doesNotContain(key.hash())
                .contains("large,small");

        assertThat(baton("router", "keys", "rotate", "nobody", "--keys-file", file.toString())
                        .exit())
                .isEqualTo(1);
        assertThat(baton("router", "keys", "remove", "gpu-1", "--keys-file", file.toString())
                        .exit())
                .isZero();
        assertThat(Files.readString(file)).doesNotContain("gpu-1");
        assertThat(baton("router", "keys", "add", "Bad Name", "--spec", "x", "--keys-file", file.toString())
                        .exit())
                .isEqualTo(2);
    }

    @Test
    void statusShowsTheRunnersOfARunningRouter() throws Exception {
        Path keys = dir.resolve("keys");
        baton("router", "keys", "add", "r1", "--spec", "host", "--keys-file", keys.toString());
        // No server: the router keeps trying upstream and says so.
        try (Router router = Router.start(
                new Router.Options(
                        URI.create("http://127.0.0.1:9"),
                        "router",
                        RunnerKey.generate(),
                        "127.0.0.1",
                        0,
                        keys,
                        dir.resolve("state"),
                        new FirstCome(),
                        RouterSettings.defaults("router")),
                Clock.systemUTC())) {
            CliRun.Result status = baton("router", "status", "--router", "http://127.0.0.1:" + router.port());
            assertThat(status.exit()).as(status.err()).isZero();
            assertThat(status.out())
                    .contains("DISCONNECTED")
                    .contains("first-come")
                    .contains("RUNNER");
        }
        assertThat(baton("router", "status", "--router", "http://127.0.0.1:9").exit())
                .isEqualTo(6);
    }

    @Test
    void upRefusesToStartWithoutAKeyOrKeysFile() {
        CliRun.Result noKey = baton(
                "router",
                "up",
                "--runner",
                "router",
                "--keys-file",
                dir.resolve("none").toString());
        assertThat(noKey.exit()).isEqualTo(2);
        assertThat(noKey.err()).contains("BATON_ROUTER_KEY");
        CliRun.Result noKeys = baton(
                "router",
                "up",
                "--runner",
                "router",
                "--key",
                RunnerKey.generate().reveal(),
                "--keys-file",
                dir.resolve("none").toString());
        assertThat(noKeys.exit()).isEqualTo(2);
        assertThat(noKeys.err()).contains("baton router keys add");
    }
}
