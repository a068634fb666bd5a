package dev.baton.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pool scenario's audit catches each broken rule from the pool's machines, the jobs and the
 * processes alone: a job run on another job's machine, two machines for one job at once, a
 * machine booting on a killed scaler node that never ended, machines and processes left after the
 * queue drained, and an attempt on a runner no machine started.
 */
class PoolAuditTest {
    private static final Instant T0 = Instant.parse("2026-11-29T18:00:00Z");
    private static final String JOB_A = "aaaaaaaa-1111-4111-8111-111111111111";
    private static final String JOB_B = "bbbbbbbb-1111-4111-8111-111111111111";

    @TempDir
    Path dir;

    private final List<JsonNode> machines = new ArrayList<>();
    private final List<JsonNode> jobs = new ArrayList<>();
    private final List<PoolFaults.ScalerKill> kills = new ArrayList<>();
    private PoolAudit.Drain drain = new PoolAudit.Drain(Duration.ofSeconds(3), List.of(), List.of());

    private static ObjectNode machine(String uuid, String job, String state, double started, Double ended) {
        ObjectNode m = Api.JSON.createObjectNode();
        m.put("uuid", uuid)
                .put("state", state)
                .put("runner", "pool-chaos-" + uuid)
                .put("node", "chaos-node-0");
        if (job != null) m.put("job", job);
        m.put("started", T0.plusMillis((long) (started * 1000)).toString());
        if (ended != null) m.put("ended", T0.plusMillis((long) (ended * 1000)).toString());
        return m;
    }

    private static ObjectNode job(String uuid, String... runnerUuids) {
        ObjectNode j = Api.JSON.createObjectNode();
        j.put("uuid", uuid).put("status", "processed");
        ArrayNode attempts = j.putArray("attempts");
        int n = 1;
        for (String r : runnerUuids) attempts.addObject().put("number", n++).put("runner", r);
        return j;
    }

    private PoolAudit.Findings assess() {
        Map<String, String> runners = new java.util.HashMap<>();
        for (JsonNode m : machines)
            runners.put(m.path("runner").asText(), "runner-" + m.path("uuid").asText());
        return PoolAudit.assess(machines, runners, jobs, kills, drain);
    }

    @Test
    void aHealthyHistoryHasNoViolationAndCountsTheFailedStarts() {
        machines.add(machine("m1", JOB_A, "failed", 1, 1.0)
                .put("reason", "provider process failed to start a machine: exit 3"));
        machines.add(machine("m2", JOB_A, "stopped", 1, 9.0));
        machines.add(
                machine("m3", JOB_B, "failed", 2, 47.0).put("reason", "did not register within boot_timeout (45 s)"));
        machines.add(machine("m4", JOB_B, "stopped", 47, 60.0));
        jobs.add(job(JOB_A, "runner-m2"));
        jobs.add(job(JOB_B, "runner-m4"));
        kills.add(new PoolFaults.ScalerKill("chaos-node-0", T0.plusSeconds(3), List.of("m3"), null));

        PoolAudit.Findings f = assess();
        assertThat(f.violations()).isEmpty();
        assertThat(f.machines()).isEqualTo(4);
        assertThat(f.failedStarts()).isEqualTo(1);
        assertThat(f.bootTimeouts()).isEqualTo(1);
        assertThat(f.bootingAtKills()).isEqualTo(1);
    }

    @Test
    void aJobOnAnotherJobsMachineIsStolen() {
        machines.add(machine("m1", JOB_A, "stopped", 1, 9.0));
        machines.add(machine("m2", JOB_B, "stopped", 1, 9.0));
        jobs.add(job(JOB_A, "runner-m2"));
        assertThat(assess().stolen()).isEqualTo(1);
        assertThat(assess().violations()).singleElement().asString().contains("started for job " + JOB_B);
    }

    @Test
    void twoMachinesLiveForOneJobAtOnceAreADuplicate() {
        machines.add(machine("m1", JOB_A, "stopped", 1, 20.0));
        machines.add(machine("m2", JOB_A, "stopped", 5, 30.0));
        assertThat(assess().duplicated()).isEqualTo(1);
        machines.clear();
        machines.add(machine("m1", JOB_A, "busy", 1, null));
        machines.add(machine("m2", JOB_A, "starting", 5, null));
        assertThat(assess().duplicated()).isEqualTo(1);
    }

    @Test
    void aMachineBootingOnAKilledScalerNodeThatNeverEndedIsLost() {
        machines.add(machine("m1", JOB_A, "starting", 1, null));
        kills.add(
                new PoolFaults.ScalerKill("chaos-node-0", T0.plusSeconds(2), List.of("m1", "m9"), T0.plusSeconds(20)));
        PoolAudit.Findings f = assess();
        assertThat(f.takeovers()).isEqualTo(1);
        assertThat(f.violations())
                .filteredOn(v -> v.contains("never ended"))
                .hasSize(2); // m1 still starting, m9 not even in the store
    }

    @Test
    void machinesAndProcessesLeftAfterTheQueueDrainedAreOrphans() throws Exception {
        JsonNode live = machine("m1", JOB_A, "idle", 1, null);
        Process sleeper =
                new ProcessBuilder("sleep", "30").directory(dir.toFile()).start();
        try {
            List<ProcessHandle> found = PoolProcesses.under(dir);
            assertThat(found)
                    .as("a process working under the pool's directory")
                    .extracting(ProcessHandle::pid)
                    .contains(sleeper.pid());
            drain = new PoolAudit.Drain(null, List.of(live), found);
            PoolAudit.Findings f = assess();
            assertThat(f.orphanMachines()).isEqualTo(1);
            assertThat(f.orphanProcesses()).isEqualTo(found.size());
            assertThat(f.gone()).isNull();
            assertThat(f.violations())
                    .anyMatch(v -> v.contains("still idle"))
                    .anyMatch(v -> v.contains("still running"));
        } finally {
            sleeper.destroyForcibly().waitFor();
        }
        assertThat(PoolProcesses.under(dir)).isEmpty();
    }

    @Test
    void anAttemptOnARunnerNoMachineStartedIsReported() {
        jobs.add(job(JOB_A, "runner-elsewhere"));
        assertThat(assess().violations()).singleElement().asString().contains("no machine of the pool started");
    }
}
