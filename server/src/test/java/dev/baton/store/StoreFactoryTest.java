package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreFactoryTest {
    @TempDir
    Path dir;

    @Test
    void noUrlMeansTheSqliteFileInTheDataDirectory() {
        Path data = dir.resolve("nested/data");
        try (Store store = StoreFactory.open(null, data)) {
            assertThat(((JdbcStore) store).dialect).isInstanceOf(SqliteDialect.class);
            store.organizations().createOrganization("A", new Slug("a"), PlanTier.FREE, Instant.EPOCH);
        }
        assertThat(Files.exists(data.resolve("baton.db"))).isTrue();
        try (Store again = StoreFactory.open("", data)) {
            assertThat(again.organizations().findOrganization(ResourceId.of("a")))
                    .as("reopened and already migrated")
                    .isPresent();
        }
    }

    @Test
    void sqliteConnectionsUseWalForeignKeysAndABusyTimeout() {
        try (Store store = StoreFactory.open("sqlite:" + dir.resolve("x.db"), null)) {
            JdbcStore jdbc = (JdbcStore) store;
            String journal = jdbc.jdbi.withHandle(h ->
                    h.createQuery("PRAGMA journal_mode").mapTo(String.class).one());
            int foreignKeys = jdbc.jdbi.withHandle(h ->
                    h.createQuery("PRAGMA foreign_keys").mapTo(Integer.class).one());
            int busyTimeout = jdbc.jdbi.withHandle(h ->
                    h.createQuery("PRAGMA busy_timeout").mapTo(Integer.class).one());
            assertThat(journal).isEqualToIgnoringCase("wal");
            assertThat(foreignKeys).isEqualTo(1);
            assertThat(busyTimeout).isPositive();
        }
        assertThat(Files.exists(dir.resolve("x.db"))).isTrue();
    }

    @Test
    void jdbcSqliteUrlsAreAccepted() {
        try (Store store = StoreFactory.open("jdbc:sqlite:" + dir.resolve("y.db"), null)) {
            assertThat(store.runners().listRunners(new RunnerFilter(null, null, true)))
                    .isEmpty();
        }
        assertThat(Files.exists(dir.resolve("y.db"))).isTrue();
    }

    @Test
    void postgresUrlsBecomeJdbcUrlsWithCredentialsAsProperties() {
        DatabaseUrl url = DatabaseUrl.parse("postgresql://baton:s%40cret@db.example:6543/prod?sslmode=require", null);
        assertThat(url.dialect()).isEqualTo(DatabaseUrl.Dialect.POSTGRESQL);
        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/prod?sslmode=require");
        assertThat(url.properties()).containsEntry("user", "baton").containsEntry("password", "s@cret");

        DatabaseUrl shortForm = DatabaseUrl.parse("postgres://127.0.0.1/test?user=postgres", null);
        assertThat(shortForm.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1/test?user=postgres");
        assertThat(shortForm.properties()).isEmpty();

        DatabaseUrl jdbc = DatabaseUrl.parse("jdbc:postgresql://h:5432/d?user=u", null);
        assertThat(jdbc.jdbcUrl()).isEqualTo("jdbc:postgresql://h:5432/d?user=u");
        assertThat(DatabaseUrl.parse("sqlite:///var/lib/baton/b.db", null).jdbcUrl())
                .isEqualTo("jdbc:sqlite:/var/lib/baton/b.db");
    }

    @Test
    void unsupportedOrIncompleteUrlsAreRefusedClearly() {
        assertThatThrownBy(() -> StoreFactory.open("mysql://root:pw@localhost/db", dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unsupported database URL")
                .hasMessageContaining("postgresql://")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(":pw@"));
        assertThatThrownBy(() -> StoreFactory.open("sqlite:", dir)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoreFactory.open("postgresql:///nohost", dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no host");
        assertThatThrownBy(() -> StoreFactory.open(null, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnreachablePostgresIsAClearErrorWithoutTheSecret() {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        assertThatThrownBy(() -> StoreFactory.open("postgresql://baton:topsecret@127.0.0.1:1/test", dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot connect to PostgreSQL at jdbc:postgresql://127.0.0.1:1/test")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("topsecret"));
    }
}
