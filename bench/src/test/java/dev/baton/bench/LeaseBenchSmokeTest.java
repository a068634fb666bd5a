package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI smoke run of {@code bench/run leases} on SQLite, so that it never rots: a real nats-server,
 * the real server offering on it, simulated runners of both transports. No thresholds: every
 * measurement is there, every job processed, no protocol problem. Skipped without nats-server.
 */
@Tag("nats")
class LeaseBenchSmokeTest {
    @TempDir
    Path out;

    @Test
    void smokeRunMeasuresBothTransports() throws Exception {
        assumeTrue(
                Files.isExecutable(BenchNats.BINARY),
                "no nats-server at " + BenchNats.BINARY + ": skipping the NATS transport bench smoke run");
        Path file = LeaseBench.run(BenchOptions.parse("--smoke", "--database", "sqlite", "--out", out.toString()));
        JsonNode r = Wire.mapper().readTree(Files.readString(file));

        assertThat(r.at("/transport_a_submit_to_lease_granted/count").asInt()).isPositive();
        assertThat(r.at("/transport_a_submit_to_lease_granted/median_ms").asDouble())
                .isPositive();
        assertThat(r.at("/transport_b_submit_to_job/submit_to_job/count").asInt())
                .isPositive();
        assertThat(r.at("/transport_a_lifecycle/finished").asBoolean())
                .as("every NATS-transport job processed")
                .isTrue();
        assertThat(r.at("/transport_a_lifecycle/problems").asLong()).isZero();
        assertThat(r.at("/transport_a_lifecycle/jobs_per_second").asDouble()).isPositive();
        assertThat(r.at("/transport_b_lifecycle/finished").asBoolean()).isTrue();
        assertThat(r.at("/transport_b_lifecycle/jobs_per_second").asDouble()).isPositive();
    }
}
