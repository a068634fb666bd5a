package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
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
        Sql.Parsed p = Sql.rewrite(
                "UPDATE job SET modified = :now, last_heartbeat = :now WHERE uuid = :uuid AND lease = :lease_1");
        assertThat(p.jdbc()).isEqualTo("UPDATE job SET modified = ?, last_heartbeat = ? WHERE uuid = ? AND lease = ?");
        assertThat(List.of(p.positions())).containsExactly("now", "now", "uuid", "lease_1");
    }

    @Test
    void quotedTextAndCastsAreLeftAlone() {
        Sql.Parsed p = Sql.rewrite(
                "SELECT hashtext(current_schema() || ':' || :org), ':x', \":y\", :n::bigint, error_code = 'queue:timeout'");
        assertThat(p.jdbc())
                .isEqualTo(
                        "SELECT hashtext(current_schema() || ':' || ?), ':x', \":y\", ?::bigint, error_code = 'queue:timeout'");
        assertThat(List.of(p.positions())).containsExactly("org", "n");
    }

    /** A heartbeat batch binds thousands of names; each lands at its own positions, and a name bound twice keeps its last value. */
    @Test
    void manyNamesBindToTheirOwnPositionsAndTheLastBindingWins(@TempDir Path dir) throws Exception {
        int n = 3000;
        String rows = IntStream.range(0, n).mapToObj(i -> "(:v" + i + ")").collect(Collectors.joining(", "));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("s.db"))) {
            Sql sql = new Statements().on(c, "SELECT SUM(column1) + :v0 AS total FROM (VALUES " + rows + ")");
            for (int i = 0; i < n; i++) sql.bind("v" + i, (long) -1);
            for (int i = 0; i < n; i++) sql.bind("v" + i, (long) i);
            long expected = (long) n * (n - 1) / 2;
            assertThat(sql.findOne(rs -> rs.getLong("total"))).contains(expected);
        }
    }

    /**
     * Heartbeat batches and id lists are texts built per call ({@code once}): however many there
     * are, a hot constant statement first seen after them is rewritten once and then remembered.
     */
    @Test
    void perCallTextsLeaveTheCacheToConstantStatements(@TempDir Path dir) throws Exception {
        Statements statements = new Statements();
        String hot = "SELECT :a + :b AS total";
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("s.db"))) {
            for (int n = 1; n <= 2000; n++) {
                String rows = IntStream.range(0, n % 50 + 1)
                        .mapToObj(i -> "(:v" + i + ")")
                        .collect(Collectors.joining(", "));
                statements.once(c, "SELECT COUNT(*) FROM (VALUES " + rows + ") WHERE column1 IN (" + n + ")");
            }
            assertThat(statements.rewrites())
                    .as("each per-call text is rewritten on its call")
                    .isEqualTo(2000);
            for (int i = 0; i < 100; i++) {
                long total =
                        statements.on(c, hot).bind("a", 1L).bind("b", (long) i).one(rs -> rs.getLong("total"));
                assertThat(total).isEqualTo(1L + i);
            }
            assertThat(statements.rewrites() - 2000).isEqualTo(1);
        }
    }

    /** A caller that hands {@code on} per-call texts by mistake empties the cache now and then; it no longer freezes it. */
    @Test
    void perCallTextsGivenAsConstantDoNotFreezeTheCache() {
        Statements statements = new Statements();
        String hot = "SELECT :a AS hot";
        for (int n = 0; n < 600; n++) statements.parse("SELECT 1 FROM job WHERE id IN (" + n + ") AND status = :s");
        long before = statements.rewrites();
        for (int i = 0; i < 100; i++) statements.parse(hot);
        assertThat(statements.rewrites() - before).isEqualTo(1);
    }

    /**
     * Each store remembers its own texts: two servers in one JVM share no statement state. A
     * constant statement is rewritten once per store, then never again by that store.
     */
    @Test
    void eachStoreRewritesItsConstantStatementsOnceAndSharesNothing(@TempDir Path dir) {
        try (JdbcStore a = (JdbcStore) StoreFactory.open(null, dir.resolve("a"));
                JdbcStore b = (JdbcStore) StoreFactory.open(null, dir.resolve("b"))) {
            assertThat(a.statements).isNotSameAs(b.statements);
            assertThat(a.context.jobRows).isNotSameAs(b.context.jobRows);
            assertThat(a.runs().findJob(JobUuid.random())).isEmpty();
            long aBefore = a.statements.rewrites();
            long bBefore = b.statements.rewrites();
            assertThat(b.runs().findJob(JobUuid.random())).isEmpty();
            assertThat(b.statements.rewrites() - bBefore)
                    .as("the first lookup in b rewrites its text, whatever a did")
                    .isEqualTo(1);
            assertThat(a.statements.rewrites())
                    .as("b's statements are none of a's business")
                    .isEqualTo(aBefore);
            for (int i = 0; i < 10; i++) {
                assertThat(a.runs().findJob(JobUuid.random())).isEmpty();
                assertThat(b.runs().findJob(JobUuid.random())).isEmpty();
            }
            assertThat(a.statements.rewrites()).isEqualTo(aBefore);
            assertThat(b.statements.rewrites() - bBefore).isEqualTo(1);
        }
    }
}
