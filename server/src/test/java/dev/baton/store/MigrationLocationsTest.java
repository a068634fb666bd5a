package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.TestDatabases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migrations live in two places per dialect: {@code db/migration/common} (the scripts both
 * dialects share byte for byte) and the dialect's own folder
 * (docs/decisions/0042-sql-dialect-strategy.md). Each version must be in exactly one of them,
 * and a database migrated when every script sat in its dialect's folder must still validate:
 * Flyway's checksum is a script's content, not its place.
 */
class MigrationLocationsTest {
    private static final Pattern VERSIONED = Pattern.compile("V(\\d+)__.+\\.sql");
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void eachVersionIsEitherCommonOrInTheDialectsOwnFolder() {
        Map<Integer, String> common = versions(StoreFactory.COMMON_MIGRATIONS);
        assertThat(common).as("the common location holds scripts").isNotEmpty();
        for (DatabaseUrl.Dialect dialect : DatabaseUrl.Dialect.values()) {
            Map<Integer, String> own = versions(StoreFactory.dialectMigrations(dialect));
            assertThat(own.keySet())
                    .as(
                            "versions both in %s and in %s",
                            StoreFactory.COMMON_MIGRATIONS, StoreFactory.dialectMigrations(dialect))
                    .doesNotContainAnyElementsOf(common.keySet());
        }
    }

    @Test
    void aSqliteDatabaseMigratedWithEveryScriptInTheDialectFolderStillOpens() throws IOException {
        Path file = dir.resolve("data").resolve("baton.db");
        Files.createDirectories(file.getParent());
        migrateFromOneFolder(DatabaseUrl.Dialect.SQLITE, "jdbc:sqlite:" + file);
        try (Store store = StoreFactory.open(null, file.getParent())) {
            store.organizations().createOrganization("A", Slug.of("a"), PlanTier.FREE, NOW);
        }
    }

    @Test
    @Tag("postgres")
    void aPostgresDatabaseMigratedWithEveryScriptInTheDialectFolderStillOpens() throws IOException, SQLException {
        assumeTrue(TestDatabases.postgresReachable(), "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL);
        String url = TestDatabases.freshPostgresSchema();
        String schema = url.substring(url.indexOf("currentSchema=") + "currentSchema=".length());
        try {
            migrateFromOneFolder(DatabaseUrl.Dialect.POSTGRESQL, "jdbc:" + url);
            try (Store store = StoreFactory.open(url, dir)) {
                store.organizations().createOrganization("A", Slug.of("a"), PlanTier.FREE, NOW);
            }
        } finally {
            try (Connection c = DriverManager.getConnection("jdbc:" + url)) {
                c.createStatement().execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /**
     * Migrates the database at {@code jdbcUrl} the way every database was migrated before the
     * common location existed: all of the dialect's scripts, the shared ones included, in one folder.
     */
    private void migrateFromOneFolder(DatabaseUrl.Dialect dialect, String jdbcUrl) throws IOException {
        Path folder =
                Files.createDirectories(dir.resolve("before-" + dialect.name().toLowerCase(Locale.ROOT)));
        Set<String> names = new TreeSet<>();
        for (String location : List.of(StoreFactory.COMMON_MIGRATIONS, StoreFactory.dialectMigrations(dialect))) {
            for (Map.Entry<String, byte[]> script : scripts(location).entrySet()) {
                Files.write(folder.resolve(script.getKey()), script.getValue());
                names.add(script.getKey());
            }
        }
        Flyway flyway = Flyway.configure()
                .dataSource(jdbcUrl, null, null)
                .locations("filesystem:" + folder)
                .load();
        flyway.migrate();
        assertThat(flyway.info().applied()).hasSize(names.size());
    }

    /** The versions of the scripts in a classpath folder, each with its file name. */
    private static Map<Integer, String> versions(String location) {
        Map<Integer, String> versions = new TreeMap<>();
        for (String name : scripts(location).keySet()) {
            Matcher m = VERSIONED.matcher(name);
            assertThat(m.matches())
                    .as("%s/%s is a versioned migration", location, name)
                    .isTrue();
            String before = versions.put(Integer.parseInt(m.group(1)), name);
            assertThat(before)
                    .as("version of %s/%s given twice", location, name)
                    .isNull();
        }
        return versions;
    }

    /** The scripts of a classpath folder by file name: a directory in an IDE, a jar in a Maven build. */
    private static Map<String, byte[]> scripts(String location) {
        try {
            URI uri = MigrationLocationsTest.class.getResource("/" + location).toURI();
            if (!"jar".equals(uri.getScheme())) return scriptsIn(Path.of(uri));
            try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of())) {
                return scriptsIn(jar.provider().getPath(uri));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, byte[]> scriptsIn(Path folder) throws IOException {
        Map<String, byte[]> scripts = new TreeMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".sql"))
                    .toList()) {
                scripts.put(file.getFileName().toString(), Files.readAllBytes(file));
            }
        }
        return scripts;
    }
}
