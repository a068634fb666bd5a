package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetsTest {
    private static final Summary FAST = new Summary(100, 1.5, 3.0, 9.0, 11.0);
    private static final Summary SLOW = new Summary(100, 4.0, 8.0, 15.0, 30.0);

    private static CoreScaling.Result cores(int runners, double ratio) {
        return new CoreScaling.Result(runners, null, null, ratio);
    }

    @Test
    void sqliteRunJudgesItsOwnRowsAndPointsToPostgresqlForTheOthers() {
        List<Targets.Line> lines = Targets.of(new Targets.Figures(
                BenchDatabase.Kind.SQLITE,
                List.of(new Targets.Round(10, 0.6, 0.9, null), new Targets.Round(100, 0.4, 1.2, null)),
                FAST,
                null,
                List.of(cores(10, 1.8), cores(100, 1.75)),
                null));

        assertThat(lines).hasSize(8);
        assertThat(lines.get(0).figure()).contains("SQLite");
        assertThat(lines.get(0).result()).isEqualTo("0.6 (R = 10), 0.4 (R = 100)");
        assertThat(lines.get(0).met()).as("every R must meet it").isFalse();
        assertThat(lines.get(1).met()).isNull();
        assertThat(lines.get(1).result()).contains("bench/run --database postgresql");
        assertThat(lines.get(2).result()).isEqualTo("SQLite 0.9 ms (R = 10), 1.2 ms (R = 100)");
        assertThat(lines.get(2).met()).as("1.2 ms is over SQLite's 1.0 ms").isFalse();
        assertThat(lines.get(3).met()).as("flushed commits are PostgreSQL's").isNull();
        assertThat(lines.get(4).result()).isEqualTo("SQLite 1.8 (R = 10), 1.75 (R = 100)");
        assertThat(lines.get(4).met()).isTrue();
        assertThat(lines.get(5).figure()).isEqualTo("dispatch p50 / p99, SQLite");
        assertThat(lines.get(5).target()).isEqualTo("≤ 2 ms / ≤ 10 ms");
        assertThat(lines.get(5).result()).isEqualTo("1.5 / 9.0 ms (n = 100)");
        assertThat(lines.get(5).met()).isTrue();
        assertThat(lines.get(6).met()).isNull();
        assertThat(lines.get(7).met()).isNull();
    }

    @Test
    void postgresqlRunJudgesFlushesCpuAndBothDispatchRows() {
        FlushedCommits.Result flushes = FlushedCommits.between(
                new FlushedCommits.Counters(100, 200, 1000), new FlushedCommits.Counters(5100, 9200, 12000), 2000);
        List<Targets.Line> lines = Targets.of(new Targets.Figures(
                BenchDatabase.Kind.POSTGRESQL,
                List.of(new Targets.Round(10, 0.35, 1.4, flushes)),
                SLOW,
                FAST,
                null,
                "no taskset"));

        assertThat(lines.get(0).met()).isNull();
        assertThat(lines.get(1).met()).as("0.35 ≥ 0.3").isTrue();
        assertThat(lines.get(2).met())
                .as("1.4 ms is within PostgreSQL's 1.5 ms")
                .isTrue();
        assertThat(lines.get(3).result()).startsWith("2.5 (R = 10)").contains("whole cluster");
        assertThat(lines.get(3).met()).isTrue();
        assertThat(lines.get(4).result()).isEqualTo("not measured: no taskset");
        assertThat(lines.get(4).met()).isNull();
        assertThat(lines.get(5).met()).isNull();
        assertThat(lines.get(6).met()).as("4 ms median is over 3 ms").isFalse();
        assertThat(lines.get(7).met())
                .as("across nodes 1.5 / 9 ms is within 5 / 20 ms")
                .isTrue();
    }

    @Test
    void aHarnessOnOneOfTheServersCoresIsSaid() {
        ResourceUse u = new ResourceUse(1, 2, 0, 0, "0 0 0");
        CoreScaling.Run one = new CoreScaling.Run("0", "1", 10, 1, 100, 10, 1, 100, 1, true, 0, 20, u, 0.3);
        CoreScaling.Run shared = new CoreScaling.Run("0,1", "1", 10, 1, 100, 10, 1, 150, 1, true, 0, 20, u, 0.3);
        CoreScaling.Run apart = new CoreScaling.Run("0,1", "2", 10, 1, 100, 10, 1, 150, 1, true, 0, 20, u, 0.3);
        Targets.Round round = new Targets.Round(10, 0.6, 0.9, null);

        Targets.Line onTwoCores = Targets.of(new Targets.Figures(
                        BenchDatabase.Kind.SQLITE,
                        List.of(round),
                        FAST,
                        null,
                        List.of(new CoreScaling.Result(10, one, shared, 1.5)),
                        null))
                .get(4);
        Targets.Line onThree = Targets.of(new Targets.Figures(
                        BenchDatabase.Kind.SQLITE,
                        List.of(round),
                        FAST,
                        null,
                        List.of(new CoreScaling.Result(10, one, apart, 1.5)),
                        null))
                .get(4);

        assertThat(onTwoCores.result()).contains("shared a core");
        assertThat(onThree.result()).isEqualTo("SQLite 1.5 (R = 10)");
        assertThat(onThree.met()).isFalse();
    }

    @Test
    void unmeasuredRowsSayWhereToLook() {
        List<Targets.Line> lines = Targets.of(new Targets.Figures(
                BenchDatabase.Kind.POSTGRESQL,
                List.of(new Targets.Round(10, 0.2, -1, null)),
                FAST,
                null,
                List.of(),
                null));

        assertThat(lines.get(2).result()).contains("not measured");
        assertThat(lines.get(2).met()).isNull();
        assertThat(lines.get(3).result()).isEqualTo("not measured");
        assertThat(lines.get(4).result()).isEqualTo("not measured");
        assertThat(lines.get(7).result()).contains("bench/run cluster");
        assertThat(lines.get(7).met()).isNull();
    }

    @Test
    void flushedCommitsAreDeltasPerJob() {
        FlushedCommits.Result r = FlushedCommits.between(
                new FlushedCommits.Counters(10, 20, 30), new FlushedCommits.Counters(40, 80, 130), 20);
        assertThat(r.walSyncs()).isEqualTo(30);
        assertThat(r.walSyncsPerJob()).isEqualTo(1.5);
        assertThat(r.walWritesPerJob()).isEqualTo(3.0);
        assertThat(r.commitsPerJob()).isEqualTo(5.0);
    }

    @Test
    void theResultsFileHoldsEveryLine() {
        List<Targets.Line> lines = List.of(
                new Targets.Line("f", "≥ 1", "2 (R = 1)", true), new Targets.Line("g", "≤ 1", "not measured", null));
        List<Map<String, Object>> json = Targets.json(lines);
        assertThat(json).hasSize(2);
        assertThat(json.get(0))
                .containsEntry("figure", "f")
                .containsEntry("target", "≥ 1")
                .containsEntry("result", "2 (R = 1)")
                .containsEntry("met", true);
        assertThat(json.get(1)).containsEntry("met", null);
    }
}
