package dev.baton.dispatch.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-job log's bounds and bookkeeping, with a tiny tail so eviction is easy to reach. */
class JobLogTest {
    static final JobUuid JOB = JobUuid.random();

    static RunnerMessage.Log text(LeaseId lease, long seq, String text) {
        return RunnerMessage.Log.text(JOB, lease, seq, LogStream.STDOUT, 0, text);
    }

    static String joined(JobLog.Read read) {
        StringBuilder b = new StringBuilder();
        read.entries().forEach(e -> b.append(e.text()));
        return b.toString();
    }

    @Test
    void theTailKeepsItsBoundWhileRunningAndEvictedTextComesBackFromTheStoredOutputAtTheEnd() {
        JobLog log = new JobLog(10, 100, 1_000);
        LeaseId lease = LeaseId.random();
        for (int i = 1; i <= 5; i++)
            assertThat(log.append(lease, text(lease, i, "line" + i + "\n"))).isEqualTo(JobLog.Appended.STORED);

        JobLog.Read running = log.read(0, 100, 1 << 20, () -> null);
        assertThat(running.entries())
                .extracting(LogEntry::seq)
                .as("only the last 10 bytes are kept")
                .containsExactly(5L);
        assertThat(running.complete()).isFalse();

        String stdout = "line1\nline2\nline3\nline4\nline5\nline6\n";
        JobOutput output = new JobOutput(List.of(new IterationResult(0, stdout, null, Map.of())), null);
        log.seal("completed", lease, output, 16 * 1024);
        JobLog.Read whole = log.read(0, 100, 1 << 20, () -> output);
        assertThat(whole.complete()).isTrue();
        assertThat(whole.entries()).extracting(LogEntry::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(joined(whole)).isEqualTo(stdout);
        assertThat(whole.endStatus()).isEqualTo("completed");
        assertThat(log.append(lease, text(lease, 6, "late\n"))).as("sealed").isEqualTo(JobLog.Appended.IGNORED);
    }

    @Test
    void aGapStopsTheAttemptsLiveLogAndTheStoredOutputFillsIn() {
        JobLog log = new JobLog(1 << 20, 100, 1_000);
        LeaseId lease = LeaseId.random();
        log.append(lease, text(lease, 1, "a\n"));
        assertThat(log.append(lease, text(lease, 1, "a\n"))).isEqualTo(JobLog.Appended.DUPLICATE);
        assertThat(log.append(lease, text(lease, 3, "c\n")))
                .as("seq 2 never came")
                .isEqualTo(JobLog.Appended.IGNORED);
        assertThat(log.append(lease, text(lease, 4, "d\n"))).isEqualTo(JobLog.Appended.IGNORED);
        JobOutput output = new JobOutput(List.of(new IterationResult(0, "a\nb\nc\nd\n", null, Map.of())), null);
        log.seal("completed", lease, output, 16 * 1024);
        assertThat(joined(log.read(0, 100, 1 << 20, () -> output))).isEqualTo("a\nb\nc\nd\n");
    }

    @Test
    void theRunnersDropMarkersShowTheStoredBytesOnceTheJobEnded() {
        JobLog log = new JobLog(1 << 20, 100, 1_000);
        LeaseId lease = LeaseId.random();
        String dropped = "é".repeat(100_000) + "\n";
        int droppedBytes = dropped.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        log.append(lease, text(lease, 1, "start\n"));
        log.append(lease, RunnerMessage.Log.dropped(JOB, lease, 2, LogStream.STDOUT, 0, droppedBytes));
        log.append(lease, text(lease, 3, "end\n"));
        JobLog.Read running = log.read(0, 100, 1 << 20, () -> null);
        assertThat(running.entries().get(1).dropped())
                .as("live, the runner's marker")
                .isEqualTo((long) droppedBytes);

        String stdout = "start\n" + dropped + "end\n";
        JobOutput output = new JobOutput(List.of(new IterationResult(0, stdout, null, Map.of())), null);
        log.seal("completed", lease, output, 16 * 1024);
        JobLog.Read whole = log.read(0, 100, 1 << 20, () -> output);
        assertThat(whole.entries())
                .extracting(LogEntry::seq)
                .as("the numbering a live reader saw is kept")
                .containsExactly(1L, 2L, 3L);
        assertThat(whole.entries()).extracting(LogEntry::dropped).containsOnlyNulls();
        assertThat(joined(whole)).isEqualTo(stdout);
        assertThat(whole.complete()).isTrue();
    }

    @Test
    void aMarkerTheStoredOutputDoesNotHoldStaysAMarker() {
        JobLog log = new JobLog(1 << 20, 100, 1_000);
        LeaseId lease = LeaseId.random();
        log.append(lease, text(lease, 1, "start\n"));
        log.append(lease, RunnerMessage.Log.dropped(JOB, lease, 2, LogStream.STDOUT, 0, 50));
        JobOutput truncated =
                new JobOutput(List.of(new IterationResult(0, "start\nonly twenty bytes..\n", null, Map.of())), null);
        log.seal("completed", lease, truncated, 16 * 1024);
        JobLog.Read read = log.read(0, 100, 1 << 20, () -> truncated);
        assertThat(read.entries().get(1).dropped()).isEqualTo(50L);
    }

    @Test
    void anEarlierAttemptsEvictedTextIsAMarkerBecauseOnlyTheLastAttemptsOutputIsStored() {
        JobLog log = new JobLog(4, 100, 1_000);
        LeaseId first = LeaseId.random();
        log.append(first, text(first, 1, "old1\n"));
        LeaseId second = LeaseId.random();
        log.append(second, text(second, 1, "new\n"));
        JobOutput output = new JobOutput(List.of(new IterationResult(0, "new\nmore\n", null, Map.of())), null);
        log.seal("failed", second, output, 16 * 1024);
        List<LogEntry> entries = log.read(0, 100, 1 << 20, () -> output).entries();
        assertThat(entries.get(0).dropped()).isEqualTo(5L);
        assertThat(entries.get(0).text()).isEmpty();
        assertThat(entries.subList(1, entries.size()))
                .extracting(LogEntry::text)
                .containsExactly("new\n", "more\n");
    }

    @Test
    void storedOutputIsCutIntoBoundedEntriesAtCharacterBoundaries() {
        JobLog log = new JobLog(1 << 20, 100, 1_000);
        String stdout = "€".repeat(20_000); // 60,000 bytes, no newline
        JobOutput output = new JobOutput(
                List.of(
                        new IterationResult(0, stdout, "e", Map.of()),
                        new IterationResult(1, "second\n", null, Map.of())),
                null);
        log.seal("completed", null, output, 16 * 1024);
        JobLog.Read read = log.read(0, 100, 1 << 20, () -> output);
        StringBuilder out = new StringBuilder();
        for (LogEntry e : read.entries()) {
            assertThat(e.text().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                    .isLessThanOrEqualTo(16 * 1024);
            if (e.iteration() == 0 && e.stream() == LogStream.STDOUT) out.append(e.text());
        }
        assertThat(out.toString()).isEqualTo(stdout);
        LogEntry last = read.entries().get(read.entries().size() - 1);
        assertThat(last.iteration()).isEqualTo(1);
        assertThat(last.text()).isEqualTo("second\n");
        // Pages are bounded and continue where they stopped.
        JobLog.Read page = log.read(0, 2, 1 << 20, () -> output);
        assertThat(page.entries()).hasSize(2);
        assertThat(page.complete()).isFalse();
        assertThat(log.read(page.next(), 100, 1 << 20, () -> output)
                        .entries()
                        .get(0)
                        .seq())
                .isEqualTo(3);
    }

    @Test
    void liveTextTheStoredOutputDoesNotHoldIsKeptAfterTheEnd() {
        JobLog log = new JobLog(1 << 20, 100, 1_000);
        LeaseId lease = LeaseId.random();
        log.append(lease, text(lease, 1, "abc\n"));
        log.append(lease, text(lease, 2, "def\n"));
        // The result was cut to fit the message limit after the live text went out.
        JobOutput output = new JobOutput(List.of(new IterationResult(0, "abc\n[cut]", null, Map.of())), null);
        log.seal("completed", lease, output, 16 * 1024);
        JobLog.Read read = log.read(0, 100, 1 << 20, () -> output);
        assertThat(read.entries()).extracting(LogEntry::text).containsExactly("abc\n", "def\n", "]");
    }
}
