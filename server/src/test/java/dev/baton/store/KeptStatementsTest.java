package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.id.JobUuid;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Constant statements kept prepared per SQLite connection (real SQLite files). */
class KeptStatementsTest {
    @TempDir
    Path dir;

    @Test
    void aConstantStatementIsCompiledOncePerConnectionAndAnswersWithItsNewValues() throws Exception {
        Statements statements = keeping();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("s.db"))) {
            for (long i = 0; i < 50; i++) {
                long total = statements
                        .on(c, "SELECT :a + :b AS total")
                        .bind("a", i)
                        .bind("b", 1L)
                        .one(rs -> rs.getLong("total"));
                assertThat(total).isEqualTo(i + 1);
            }
            assertThat(statements.kept().prepares()).isEqualTo(1);
            statements.on(c, "SELECT :a AS other").bind("a", 1L).one(rs -> rs.getLong("other"));
            assertThat(statements.kept().prepares()).isEqualTo(2);
        }
        try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("s.db"))) {
            statements
                    .on(other, "SELECT :a + :b AS total")
                    .bind("a", 1L)
                    .bind("b", 1L)
                    .one(rs -> rs.getLong("total"));
            assertThat(statements.kept().prepares())
                    .as("each connection compiles its own")
                    .isEqualTo(3);
        }
    }

    /** Reading inside a reader with the same text (a nested use) gets a statement of its own, not the one still being read. */
    @Test
    void aNestedUseOfTheSameTextPreparesItsOwn() throws Exception {
        Statements statements = keeping();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("s.db"))) {
            String text =
                    "SELECT value AS v FROM (SELECT 1 AS value UNION ALL SELECT 2 UNION ALL SELECT 3) WHERE value >= :min ORDER BY value";
            var pairs = statements
                    .on(c, text)
                    .bind("min", 1L)
                    .list(rs -> rs.getLong("v") * 10
                            + statements
                                    .on(c, text)
                                    .bind("min", rs.getLong("v"))
                                    .list(inner -> inner.getLong("v"))
                                    .size());
            assertThat(pairs).containsExactly(13L, 22L, 31L);
            assertThat(statements.kept().prepares()).isEqualTo(2);
        }
    }

    /** A kept statement is reset when given back: it holds no read snapshot, so a checkpoint can empty the write-ahead log. */
    @Test
    void keptStatementsHoldNoSnapshot() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("wal.db");
        Statements statements = keeping();
        try (Connection reader = DriverManager.getConnection(url);
                Connection writer = DriverManager.getConnection(url)) {
            try (Statement s = writer.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("CREATE TABLE t (x INTEGER)");
                s.execute("INSERT INTO t VALUES (1), (2), (3)");
            }
            // exists() reads the first row of three: the statement is given back before its end.
            assertThat(statements
                            .on(reader, "SELECT x FROM t WHERE x >= :min ORDER BY x")
                            .bind("min", 1L)
                            .exists())
                    .isTrue();
            try (Statement s = writer.createStatement()) {
                s.execute("INSERT INTO t VALUES (4)");
                try (ResultSet checkpoint = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
                    assertThat(checkpoint.next()).isTrue();
                    assertThat(checkpoint.getInt(1))
                            .as("busy: a reader still holds a snapshot")
                            .isZero();
                }
            }
            assertThat(statements.kept().prepares()).isEqualTo(1);
            assertThat(statements
                            .on(reader, "SELECT x FROM t WHERE x >= :min ORDER BY x")
                            .bind("min", 4L)
                            .list(rs -> rs.getLong("x")))
                    .containsExactly(4L);
            assertThat(statements.kept().prepares())
                    .as("the same statement, reused")
                    .isEqualTo(1);
        }
    }

    /** A statement that failed is closed, not kept: the next use compiles a fresh one and works. */
    @Test
    void aFailedStatementIsNotKept() throws Exception {
        Statements statements = keeping();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("s.db"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE u (id INTEGER PRIMARY KEY)");
            }
            String insert = "INSERT INTO u (id) VALUES (:id)";
            statements.on(c, insert).bind("id", 1L).execute();
            assertThatThrownBy(() -> statements.on(c, insert).bind("id", 1L).execute())
                    .isInstanceOf(Sql.StatementFailed.class);
            assertThat(statements.on(c, insert).bind("id", 2L).execute()).isEqualTo(1);
            assertThat(statements.kept().prepares()).isEqualTo(2);
        }
    }

    /** The SQLite store keeps its statements; a lookup repeated compiles nothing more. */
    @Test
    void theSqliteStoreKeepsItsStatementsPrepared() {
        try (JdbcStore store = (JdbcStore) StoreFactory.open(null, dir.resolve("store"))) {
            assertThat(store.statements.kept()).isNotNull();
            assertThat(store.runs().findJob(JobUuid.random())).isEmpty();
            long before = store.statements.kept().prepares();
            for (int i = 0; i < 20; i++)
                assertThat(store.runs().findJob(JobUuid.random())).isEmpty();
            assertThat(store.statements.kept().prepares() - before).isLessThanOrEqualTo(1);
        }
    }

    private static Statements keeping() {
        Statements statements = new Statements();
        statements.keepPrepared();
        return statements;
    }
}
