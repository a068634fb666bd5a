package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConnection;

class SqlitePoolTest {
    @TempDir
    Path dir;

    /** Every INSERT would otherwise cost a second statement (SELECT last_insert_rowid()) that nobody reads. */
    @Test
    void theDriverDoesNotFetchGeneratedKeysAfterInserts() throws Exception {
        try (JdbcStore store = (JdbcStore) StoreFactory.open(null, dir);
                Connection c = store.pool.getConnection()) {
            assertThat(c.unwrap(SQLiteConnection.class).getConnectionConfig().isGetGeneratedKeys())
                    .isFalse();
        }
    }
}
