package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What `baton up` adds to the server: a local runner in the same process and a sample job that
 * goes through the real API and channel to processed — twice on the same data, as a user starting
 * Baton again would.
 */
class LocalInstallationTest {
    @TempDir
    Path dataDir;

    @Test
    void theSampleJobIsProcessedOnFirstAndLaterStarts() throws Exception {
        for (int start = 1; start <= 2; start++) {
            ServerConfig config = ServerConfig.defaults(dataDir).withListen("127.0.0.1", 0);
            try (BatonServer server =
                            ServerAssembly.builder(config, Clock.systemUTC()).start();
                    LocalInstallation local = LocalInstallation.start(
                            server.publicUrl(),
                            Files.readString(dataDir.resolve("admin-token")).strip(),
                            dataDir)) {
                LocalInstallation.SampleResult sample = local.runSample();
                assertThat(sample.status())
                        .as("start " + start + ": " + sample.error())
                        .isEqualTo("processed");
                assertThat(sample.stdout()).contains("shell-loop-20k");
                assertThat(sample.results()).contains("\"shell-loop-20k\"").contains("\"value\"");
            }
        }
    }
}
