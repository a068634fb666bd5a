package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatementStatsTest {

    @Test
    void withoutTheExtensionTheRowIsTheNoteAlone() {
        List<String[]> table = new ArrayList<>();
        StatementStats.addRows(
                table,
                "2s",
                new StatementStats.Result(10, -1, -1, -1, -1, List.of(), "pg_stat_statements not available"));
        assertThat(table).hasSize(1);
        assertThat(table.getFirst()[1]).isEqualTo("pg_stat_statements not available");
    }

    @Test
    void theTableShowsTheTotalThenEachStatementAndSumsTheRest() {
        List<StatementStats.Counted> counted = new ArrayList<>();
        for (int i = 0; i < StatementStats.SHOWN + 2; i++)
            counted.add(new StatementStats.Counted(1.0, 1.0, 0.5, 0.5, "SELECT " + i));
        List<String[]> table = new ArrayList<>();
        StatementStats.addRows(table, "2s", new StatementStats.Result(10, 26, 26, 13, 0, counted, null));
        assertThat(table).hasSize(1 + StatementStats.SHOWN + 1);
        assertThat(table.getFirst()[1]).startsWith("26.0 statements/job");
        assertThat(table.get(1)[1]).isEqualTo("SELECT 0");
        assertThat(table.getLast()[1]).isEqualTo("2 other statements");
        assertThat(table.getLast()[0]).contains("2.0/job");
    }

    @Test
    void transactionControlIsToldApart() {
        assertThat(StatementStats.isTransactionControl("COMMIT")).isTrue();
        assertThat(StatementStats.isTransactionControl("begin")).isTrue();
        assertThat(StatementStats.isTransactionControl("SELECT 1")).isFalse();
    }
}
