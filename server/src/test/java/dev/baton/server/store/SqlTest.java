package dev.baton.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqlTest {
    @Test
    void namedParametersBecomePositionalInOrderOfUse() {
        Sql.Parsed p = Sql.rewrite("UPDATE job SET modified = :now, last_heartbeat = :now WHERE uuid = :uuid AND lease = :lease_1");
        assertThat(p.jdbc()).isEqualTo("UPDATE job SET modified = ?, last_heartbeat = ? WHERE uuid = ? AND lease = ?");
        assertThat(List.of(p.positions())).containsExactly("now", "now", "uuid", "lease_1");
    }

    @Test
    void quotedTextAndCastsAreLeftAlone() {
        Sql.Parsed p = Sql.rewrite("SELECT hashtext(current_schema() || ':' || :org), ':x', \":y\", :n::bigint, error_code = 'queue:timeout'");
        assertThat(p.jdbc()).isEqualTo("SELECT hashtext(current_schema() || ':' || ?), ':x', \":y\", ?::bigint, error_code = 'queue:timeout'");
        assertThat(List.of(p.positions())).containsExactly("org", "n");
    }

    /** A heartbeat batch binds thousands of names; each lands at its own positions, and a name bound twice keeps its last value. */
    @Test
    void manyNamesBindToTheirOwnPositionsAndTheLastBindingWins(@TempDir Path dir) throws Exception {
        int n = 3000;
        String rows = IntStream.range(0, n).mapToObj(i -> "(:v" + i + ")").collect(Collectors.joining(", "));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("s.db"))) {
            Sql sql = Sql.on(c, "SELECT SUM(column1) + :v0 AS total FROM (VALUES " + rows + ")");
            for (int i = 0; i < n; i++) sql.bind("v" + i, (long) -1);
            for (int i = 0; i < n; i++) sql.bind("v" + i, (long) i);
            long expected = (long) n * (n - 1) / 2;
            assertThat(sql.findOne(rs -> rs.getLong("total"))).contains(expected);
        }
    }
}
