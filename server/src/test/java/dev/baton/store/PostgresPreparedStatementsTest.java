package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import java.sql.Connection;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot path prepares a new JDBC statement per call ({@link Sql}); on PostgreSQL it must still
 * run as a server-side prepared statement (parsed and planned once per connection), which pgjdbc
 * does from a statement's fifth use through its per-connection statement cache. This holds the
 * pool's settings to that.
 */
@Tag("postgres")
class PostgresPreparedStatementsTest {
    @TempDir
    Path dir;

    @Test
    void aHotStatementIsServerPreparedAfterAFewUsesOnAConnection() throws Exception {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
        try (JdbcStore store = (JdbcStore) StoreFactory.open(TestDatabases.freshPostgresSchema(), dir);
                Connection c = store.pool.getConnection()) {
            String sql = "SELECT " + Rows.JOB + " FROM job WHERE uuid = :uuid";
            for (int i = 0; i < 6; i++) {
                assertThat(store.statements
                                .on(c, sql)
                                .bind("uuid", "00000000-0000-0000-0000-00000000000" + i)
                                .findOne(store.context.jobRows))
                        .isEmpty();
            }
            long prepared = store.statements
                    .on(c, "SELECT COUNT(*) FROM pg_prepared_statements WHERE statement = :text")
                    .bind("text", store.statements.parse(sql).jdbc().replace("?", "$1"))
                    .one(rs -> rs.getLong(1));
            assertThat(prepared).isEqualTo(1);
        }
    }
}
