package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Killing a recorded process group with real processes, without a cgroup (what a runner that may
 * not create cgroups relies on), and the guards that keep a stale record from killing strangers.
 */
class ProcessRecordTest {
    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    /** A session leader (setsid) with a background child that left the leader's process tree view: it waits forever. */
    private Process group() throws IOException, InterruptedException {
        Path ready = dir.resolve("ready");
        Process p = new ProcessBuilder(
                        "setsid",
                        "sh",
                        "-c",
                        "sleep 600 & echo $! > " + ready + ".tmp && mv " + ready + ".tmp " + ready + "; wait")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        started.add(p);
        while (!Files.exists(ready)) Thread.sleep(10);
        Files.delete(ready);
        // The mv that made the file is of the group too until it exits (seen under load): wait for
        // the group to be its leader and the sleep alone, so each test counts only those two.
        for (int i = 0; i < 500 && ProcessGroups.members(p.pid()).size() != 2; i++) Thread.sleep(10);
        return p;
    }

    private static ProcessRecord record(Process p, long leaderStart, String boot) {
        return new ProcessRecord(JobUuid.random().toString(), p.pid(), leaderStart, boot, null);
    }

    @Test
    void killsEveryMemberOfTheGroup() throws Exception {
        Process p = group();
        assertThat(ProcessGroups.members(p.pid())).hasSize(2);
        ProcessRecord r = record(p, ProcessGroups.startTicks(p.pid()).orElseThrow(), ProcessGroups.bootId());
        r.write(dir);
        assertThat(ProcessRecord.read(dir)).isEqualTo(r);

        assertThat(r.kill()).isEqualTo("process group " + p.pid() + " (2 processes)");
        assertThat(ProcessGroups.members(p.pid())).isEmpty();
        p.waitFor();
        assertThat(r.kill()).as("nothing left the second time").isNull();
    }

    @Test
    void aRecordFromAnotherBootOrOfAReusedGroupIdKillsNothing() throws Exception {
        Process p = group();
        long start = ProcessGroups.startTicks(p.pid()).orElseThrow();
        assertThat(record(p, start, "another-boot").kill()).isNull();
        assertThat(record(p, start + 1, ProcessGroups.bootId()).kill())
                .as("the leader is not the recorded one")
                .isNull();
        assertThat(ProcessGroups.members(p.pid())).hasSize(2);
    }
}
