package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI smoke run of the whole harness (issue 6: "so it never rots"): a seconds-long run on each
 * dialect against a real server, real WebSockets, a real SQLite file and the local PostgreSQL.
 * No thresholds: it checks that every measurement was produced with sane numbers.
 */
@Tag("postgres")
class BenchSmokeTest {
    @TempDir
    Path out;

    @Test
    void smokeRunOnSqliteProducesEveryMeasurement() throws Exception {
        check(run("sqlite"), false);
    }

    @Test
    void smokeRunOnPostgresqlProducesEveryMeasurement() throws Exception {
        check(run("postgresql"), true);
    }

    private JsonNode run(String database) throws Exception {
        Path file = Bench.run(BenchOptions.parse("--smoke", "--database", database, "--out", out.toString()));
        assertThat(file).exists().startsWith(out);
        return Wire.mapper().readTree(Files.readString(file));
    }

    private static void check(JsonNode r, boolean postgres) {
        latency(r.at("/dispatch_latency/submit_to_job"), 10);
        latency(r.at("/dispatch_latency/post_round_trip"), 10);
        assertThat(r.at("/dispatch_latency/problems").asLong()).isZero();
        latency(r.at("/polling_baseline/submit_to_claim"), 2);
        // Across nodes in the main run: PostgreSQL only (two cluster nodes on a fresh schema).
        assertThat(r.has("dispatch_latency_across_nodes")).isEqualTo(postgres);
        if (postgres) latency(r.at("/dispatch_latency_across_nodes/submit_to_job"), 10);

        JsonNode rounds = r.get("lifecycle_throughput");
        assertThat(rounds).hasSize(2);
        for (JsonNode round : rounds) {
            assertThat(round.at("/server/finished").asBoolean())
                    .as("every job processed")
                    .isTrue();
            assertThat(round.at("/server/problems").asLong()).isZero();
            assertThat(round.at("/server/jobs_per_second").asDouble()).isPositive();
            // createRun, start, complete and process once per job, plus the claims: one claim
            // transaction may serve several waiting runners (Store.claimEach, issue 13), and a job
            // submitted while a runner waits is claimed in its own insert's transaction (createRunAndClaim,
            // decision 0063), so at least four.
            assertThat(round.at("/server/writes_per_job").asDouble())
                    .as("createRun, start, complete, process, and claims")
                    .isGreaterThanOrEqualTo(4);
            assertThat(round.at("/store_ceiling/jobs_per_second").asDouble()).isPositive();
            assertThat(round.at("/ratio_server_to_store").asDouble()).isPositive();
            // The raw ceiling (issue 13): plain JDBC, one transaction per step and 25 jobs per transaction.
            assertThat(round.get("raw_ceiling")).hasSize(2);
            assertThat(round.at("/raw_ceiling/0/jobs_per_transaction").asInt()).isEqualTo(1);
            assertThat(round.at("/raw_ceiling/1/jobs_per_transaction").asInt()).isEqualTo(RawCeiling.BATCH);
            for (JsonNode raw : round.get("raw_ceiling"))
                assertThat(raw.at("/jobs_per_second").asDouble()).isPositive();
            assertThat(round.at("/ratio_server_to_raw_per_step").asDouble()).isPositive();
            // The transport floor (issue 13): the same harness against a server with no store and no Baton logic.
            assertThat(round.at("/transport_floor/floor/finished").asBoolean())
                    .as("every floor job completed")
                    .isTrue();
            assertThat(round.at("/transport_floor/floor/problems").asLong()).isZero();
            assertThat(round.at("/transport_floor/floor/jobs_per_second").asDouble())
                    .isPositive();
            assertThat(round.at("/transport_floor/floor/writes_per_job").asDouble())
                    .as("no store behind the floor")
                    .isZero();
            assertThat(round.at("/transport_floor/run_answer_bytes").asInt()).isPositive();
            assertThat(round.at("/transport_floor/job_message_bytes").asInt()).isPositive();
            assertThat(round.at("/ratio_floor_to_raw_per_step").asDouble()).isPositive();
            assertThat(round.at("/ratio_server_to_floor").asDouble()).isPositive();
            // Baton's own machine CPU per job: lifecycle minus floor minus raw at 25 per transaction (may be
            // negative on a tiny, noisy run; -1 only without /proc/stat).
            assertThat(round.get("baton_own_machine_cpu_ms_per_job").isNumber()).isTrue();
            // Flushed commits (pg_stat_wal), PostgreSQL only: the lifecycle commits, so the cluster flushed.
            assertThat(round.has("flushed_commits")).isEqualTo(postgres);
            if (postgres) {
                assertThat(round.at("/flushed_commits/jobs").asLong()).isEqualTo(30);
                assertThat(round.at("/flushed_commits/wal_syncs").asLong()).isPositive();
                assertThat(round.at("/flushed_commits/wal_syncs_per_job").asDouble())
                        .isPositive();
                assertThat(round.at("/flushed_commits/commits_per_job").asDouble())
                        .isPositive();
                // Statements per job (pg_stat_statements), or the note saying why they were not counted.
                JsonNode statements = round.get("statements");
                assertThat(statements).isNotNull();
                JsonNode note = statements.get("note"); // absent when null (the results file leaves nulls out)
                if (note == null || note.isNull()) {
                    assertThat(statements.get("statements_per_job").asDouble()).isPositive();
                    assertThat(statements.get("statements")).isNotEmpty();
                } else {
                    assertThat(note.asText()).contains("pg_stat_statements");
                }
            }
        }

        // Server on 1 and 2 cores, the harness in a pinned child JVM (where taskset and two CPUs exist).
        JsonNode cores = r.get("core_scaling");
        if (CpuPinning.unavailable() == null) {
            assertThat(cores).hasSize(2);
            for (JsonNode c : cores) {
                for (String run : new String[] {"one_core", "two_cores"}) {
                    assertThat(c.at("/" + run + "/finished").asBoolean())
                            .as(run + ": every job processed")
                            .isTrue();
                    assertThat(c.at("/" + run + "/problems").asLong()).isZero();
                    assertThat(c.at("/" + run + "/jobs_per_second").asDouble()).isPositive();
                    assertThat(c.at("/" + run + "/harness_cpus").asText())
                            .isNotEqualTo(c.at("/" + run + "/server_cpus").asText());
                }
                assertThat(c.at("/one_core/server_cpus").asText()).doesNotContain(",");
                assertThat(c.at("/two_cores/server_cpus").asText()).contains(",");
                assertThat(c.get("ratio").asDouble()).isPositive();
            }
        } else {
            assertThat(cores.get("not_measured").asText()).isNotEmpty();
        }

        // The summary: one line per row of the targets table, each with a figure from this run or why not.
        JsonNode targets = r.get("targets");
        assertThat(targets).hasSize(8);
        for (JsonNode t : targets) {
            assertThat(t.get("figure").asText()).isNotEmpty();
            assertThat(t.get("target").asText()).isNotEmpty();
            assertThat(t.get("result").asText()).isNotEmpty();
        }
        long judged = 0;
        for (JsonNode t : targets) if (t.hasNonNull("met")) judged++;
        // SQLite: lifecycle/floor, CPU, cores, dispatch; PostgreSQL: the same plus flushes and across nodes.
        int coresJudged = CpuPinning.unavailable() == null ? 1 : 0;
        assertThat(judged).isEqualTo((postgres ? 5 : 3) + coresJudged);

        JsonNode scale = r.get("connection_scale");
        assertThat(scale.get("connected").asInt()).isEqualTo(20);
        assertThat(scale.get("open_at_end").asInt()).isEqualTo(20);
        assertThat(scale.get("acked_in_window").asInt())
                .as("every runner heartbeat was acked")
                .isEqualTo(20);
        assertThat(scale.get("holding_jobs").asInt()).isEqualTo(2);
        assertThat(scale.get("problems").asLong()).isZero();
        assertThat(scale.get("acks_per_second").asDouble()).isPositive();
        latency(scale.get("ack_latency"), 1);
        assertThat(scale.at("/server/cpu_cores").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(r.at("/dispatch_latency/resources/cpu_cores").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(scale.get("server_rss_mib").asDouble()).isPositive();
        assertThat(scale.get("store_writes_per_second").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(scale.has("pg_commits_per_second")).isEqualTo(postgres);
    }

    private static void latency(JsonNode s, int minCount) {
        assertThat(s.get("count").asInt()).isGreaterThanOrEqualTo(minCount);
        double median = s.get("median_ms").asDouble();
        assertThat(median).isPositive();
        assertThat(s.get("p90_ms").asDouble()).isGreaterThanOrEqualTo(median);
        assertThat(s.get("p99_ms").asDouble())
                .isGreaterThanOrEqualTo(s.get("p90_ms").asDouble());
        assertThat(s.get("max_ms").asDouble())
                .isGreaterThanOrEqualTo(s.get("p99_ms").asDouble());
    }
}
