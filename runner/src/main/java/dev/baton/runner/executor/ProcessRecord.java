package dev.baton.runner.executor;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * What the process executor started for a job, kept in the job's directory while it runs, so
 * that the next agent can kill it if this one dies with SIGKILL: the process group (= session,
 * started with {@code setsid}) with its leader's start time and the boot it belongs to, and the
 * job's cgroup if it has one. Written before the workload runs (cgroup only) and again once it
 * has its group; replaced per iteration.
 *
 * @param pgid the group id, 0 while not launched yet
 * @param leaderStart the leader's start in clock ticks since boot, -1 if unknown
 * @param cgroup the job's cgroup directory, or null
 */
record ProcessRecord(
        String job,
        long pgid,
        @JsonProperty("leader_start") long leaderStart,
        @JsonProperty("boot_id") String bootId,
        String cgroup) {
    static final String FILE = "processes.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    void write(Path dir) {
        Path target = dir.resolve(FILE);
        Path tmp = dir.resolve(FILE + ".tmp");
        try {
            Files.write(tmp, JSON.writeValueAsBytes(this));
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the job's processes in " + target, e);
        }
    }

    static ProcessRecord read(Path dir) throws IOException {
        return JSON.readValue(dir.resolve(FILE).toFile(), ProcessRecord.class);
    }

    /**
     * SIGKILLs whatever of this record still runs: the cgroup's processes, and the group's
     * members if the group is still the recorded one in this boot.
     *
     * @return a description of what was killed, or null if nothing was running
     */
    String kill() {
        StringBuilder what = new StringBuilder();
        if (cgroup != null) {
            int n = Cgroups.killAndRemove(Path.of(cgroup));
            if (n > 0)
                what.append("cgroup ")
                        .append(cgroup)
                        .append(" (")
                        .append(n)
                        .append(n == 1 ? " process)" : " processes)");
        }
        if (pgid > 0 && bootId.equals(ProcessGroups.bootId()) && ProcessGroups.sameGroup(pgid, leaderStart)) {
            int n = ProcessGroups.signal(pgid, true);
            if (n > 0) {
                if (!what.isEmpty()) what.append(", ");
                what.append("process group ")
                        .append(pgid)
                        .append(" (")
                        .append(n)
                        .append(n == 1 ? " process)" : " processes)");
            }
        }
        return what.isEmpty() ? null : what.toString();
    }
}
