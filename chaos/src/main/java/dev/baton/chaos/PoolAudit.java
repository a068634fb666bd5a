package dev.baton.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pool scenario's own counts (docs/reliability.md, "The pool scenario"), beside the job
 * audit's: machines left running after the queue drained (rows the store keeps live, and
 * processes the kernel still runs), jobs run on a machine started for another job, two machines
 * for one job at once, and what became of the machines that were booting when the scaler's node
 * was killed.
 */
final class PoolAudit {
    /** How long after the queue drained every machine must be gone: the 60 s. */
    static final Duration ORPHAN_AFTER = Duration.ofSeconds(60);

    private PoolAudit() {}

    /**
     * What the pool did and what broke.
     *
     * @param machines        machines the pool started (every row, failed starts included)
     * @param failedStarts    ended failed because the provider's start failed
     * @param bootTimeouts    ended failed because the runner did not register within the boot timeout
     * @param bootingAtKills  machines that were booting on a killed scaler node
     * @param takeovers       kills of the scaler's node after which another node started machines while it was down
     * @param gone            from the queue drained to no live machine and no pool process (null: not within 60 s)
     * @param orphanMachines  machine rows still live 60 s after the queue drained
     * @param orphanProcesses pool processes (runners, their jobs) still running then
     * @param stolen          attempts on a machine started for another job
     * @param duplicated      jobs with two machines live at once
     */
    record Findings(
            int machines,
            int failedStarts,
            int bootTimeouts,
            int bootingAtKills,
            int takeovers,
            Duration gone,
            int orphanMachines,
            int orphanProcesses,
            int stolen,
            int duplicated,
            List<String> violations) {

        String describe() {
            return "pool machines started: " + machines + " (failed starts " + failedStarts + ", boot timeouts "
                    + bootTimeouts + ")\n"
                    + "machines booting when the scaler's node was killed: " + bootingAtKills
                    + "; kills after which another node scaled: " + takeovers + "\n"
                    + "all machines gone after the queue drained: "
                    + (gone == null ? "not within " + ORPHAN_AFTER.toSeconds() + " s" : Audit.seconds(gone)) + "\n"
                    + "orphan machines (rows live " + ORPHAN_AFTER.toSeconds() + " s after the queue drained): "
                    + orphanMachines + ", orphan processes: " + orphanProcesses + "\n"
                    + "jobs run on a machine started for another job: " + stolen + "\n"
                    + "jobs with two machines at once: " + duplicated + "\n";
        }
    }

    /** What was left when the wait after the queue drained ended. */
    record Drain(Duration gone, List<JsonNode> liveMachines, List<ProcessHandle> processes) {}

    /**
     * A bounded real wait: from the queue drained, until no machine row is live and no process of
     * the pool runs, at most {@link #ORPHAN_AFTER}; what is left then is orphaned.
     */
    static Drain drain(PoolWatch watch, Path poolDir, Instant drained) throws InterruptedException {
        Instant deadline = drained.plus(ORPHAN_AFTER);
        while (true) {
            Instant asked = Instant.now();
            // Only a read of the pool made after this instant counts (while some node answers).
            while ((watch.lastRead() == null || watch.lastRead().isBefore(asked))
                    && Instant.now().isBefore(deadline)) Thread.sleep(100);
            List<JsonNode> live = watch.machines(PoolWatch::live);
            List<ProcessHandle> running = PoolProcesses.under(poolDir);
            if (live.isEmpty() && running.isEmpty())
                return new Drain(Duration.between(drained, Instant.now()), live, running);
            if (Instant.now().isAfter(deadline)) return new Drain(null, live, running);
            Thread.sleep(500);
        }
    }

    /**
     * @param machines     every machine of the pool, as last seen
     * @param runnerUuids  runner slug → uuid, for the machines' runners
     * @param jobs         every job, with its attempts
     */
    static Findings assess(
            List<JsonNode> machines,
            Map<String, String> runnerUuids,
            List<JsonNode> jobs,
            List<PoolFaults.ScalerKill> kills,
            Drain drain) {
        List<String> violations = new ArrayList<>();
        Map<String, JsonNode> byRunner = new HashMap<>();
        Map<String, JsonNode> byUuid = new HashMap<>();
        for (JsonNode m : machines) {
            byUuid.put(m.path("uuid").asText(), m);
            String runner = runnerUuids.get(m.path("runner").asText());
            if (runner != null) byRunner.put(runner, m);
        }
        int failedStarts = 0;
        int bootTimeouts = 0;
        for (JsonNode m : machines) {
            if (!"failed".equals(m.path("state").asText())) continue;
            String reason = m.path("reason").asText("");
            if (reason.contains("failed to start")) failedStarts++;
            else if (reason.contains("did not register")) bootTimeouts++;
        }

        int stolen = 0;
        for (JsonNode job : jobs) {
            String uuid = job.path("uuid").asText();
            for (JsonNode a : job.path("attempts")) {
                JsonNode m = byRunner.get(a.path("runner").asText());
                if (m == null) {
                    violations.add(uuid + ": attempt " + a.path("number").asInt() + " ran on runner "
                            + a.path("runner").asText() + ", which no machine of the pool started");
                } else if (!uuid.equals(m.path("job").asText())) {
                    stolen++;
                    violations.add(uuid + ": attempt " + a.path("number").asInt() + " ran on machine "
                            + m.path("uuid").asText() + ", started for job "
                            + m.path("job").asText(""));
                }
            }
        }

        int duplicated = 0;
        Map<String, List<JsonNode>> byJob = new HashMap<>();
        for (JsonNode m : machines)
            if (m.hasNonNull("job"))
                byJob.computeIfAbsent(m.path("job").asText(), k -> new ArrayList<>())
                        .add(m);
        for (var e : byJob.entrySet()) {
            List<JsonNode> ms = new ArrayList<>(e.getValue());
            ms.sort(Comparator.comparing(m -> PoolWatch.instant(m, "started")));
            for (int i = 1; i < ms.size(); i++) {
                Instant previousEnd = PoolWatch.instant(ms.get(i - 1), "ended");
                if (previousEnd == null
                        || PoolWatch.instant(ms.get(i), "started").isBefore(previousEnd)) {
                    duplicated++;
                    violations.add(e.getKey() + ": machines "
                            + ms.get(i - 1).path("uuid").asText() + " and "
                            + ms.get(i).path("uuid").asText() + " were live for it at once");
                }
            }
        }

        int booting = 0;
        int takeovers = 0;
        for (PoolFaults.ScalerKill k : kills) {
            booting += k.booting().size();
            if (k.takenOver() != null) takeovers++;
            for (String uuid : k.booting()) {
                JsonNode m = byUuid.get(uuid);
                if (m == null || PoolWatch.live(m))
                    violations.add("machine " + uuid + ", booting when " + k.node()
                            + " was killed, never ended (lost by the scaler)");
            }
        }

        for (JsonNode m : drain.liveMachines())
            violations.add("machine " + m.path("uuid").asText() + " still "
                    + m.path("state").asText() + " " + ORPHAN_AFTER.toSeconds() + " s after the queue drained");
        for (ProcessHandle p : drain.processes())
            violations.add("process " + p.pid() + " (" + p.info().commandLine().orElse("?") + ") still running "
                    + ORPHAN_AFTER.toSeconds() + " s after the queue drained");
        return new Findings(
                machines.size(),
                failedStarts,
                bootTimeouts,
                booting,
                takeovers,
                drain.gone(),
                drain.liveMachines().size(),
                drain.processes().size(),
                stolen,
                duplicated,
                violations);
    }
}
