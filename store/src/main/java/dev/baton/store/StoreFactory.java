package dev.baton.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.core.config.PrivateFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import org.flywaydb.core.Flyway;

/**
 * Opens Baton's store for a database URL: SQLite (the embedded default) or PostgreSQL. Builds
 * the connection pool, migrates the schema with the dialect's Flyway migrations and hands back
 * the dialect's {@link Store}. See docs/decisions/0001-store-dialects.md.
 */
public final class StoreFactory {
    /** The classpath folder of the migrations both dialects share. */
    static final String COMMON_MIGRATIONS = "db/migration/common";

    private StoreFactory() {}

    /**
     * @param databaseUrl null or empty for {@code {dataDir}/baton.db}; otherwise a URL of
     *                    {@link DatabaseUrl}'s forms
     * @throws IllegalArgumentException for a URL Baton does not support
     * @throws IllegalStateException    when the database cannot be reached or migrated
     */
    public static Store open(String databaseUrl, Path dataDir) {
        DatabaseUrl url = DatabaseUrl.parse(databaseUrl, dataDir);
        HikariDataSource pool = switch (url.dialect()) {
            case SQLITE -> sqlitePool(url);
            case POSTGRESQL -> postgresPool(url);
        };
        try {
            Flyway.configure()
                    .dataSource(pool)
                    .locations(migrationLocations(url.dialect()))
                    .load()
                    .migrate();
            SqlDialect dialect =
                    url.dialect() == DatabaseUrl.Dialect.SQLITE ? new SqliteDialect() : new PostgresDialect(pool);
            return new JdbcStore(pool, dialect);
        } catch (RuntimeException e) {
            pool.close();
            throw new IllegalStateException(
                    "cannot migrate the database at " + url.describe() + ": " + rootMessage(e), e);
        }
    }

    /**
     * Where the dialect's migrations are: the scripts both dialects share byte for byte, and the
     * dialect's own. Each version is in exactly one of the two (Flyway refuses two different
     * scripts of one version; MigrationLocationsTest refuses a version in both folders at all); a
     * script's checksum is its content, not its folder, so moving a script between them leaves
     * the databases it already migrated valid (docs/decisions/0042-sql-dialect-strategy.md).
     */
    static String[] migrationLocations(DatabaseUrl.Dialect dialect) {
        return new String[] {"classpath:" + COMMON_MIGRATIONS, "classpath:" + dialectMigrations(dialect)};
    }

    /** The classpath folder of the migrations that differ between the dialects. */
    static String dialectMigrations(DatabaseUrl.Dialect dialect) {
        return "db/migration/" + (dialect == DatabaseUrl.Dialect.SQLITE ? "sqlite" : "postgresql");
    }

    /**
     * Opens plain, unpooled connections to the database of {@code databaseUrl} (a pooled one cannot
     * hold a LISTEN), or empty for SQLite, which has no cross-process notifications and is one node.
     */
    public static java.util.Optional<java.util.function.Supplier<java.sql.Connection>> directConnections(
            String databaseUrl, Path dataDir) {
        DatabaseUrl url = DatabaseUrl.parse(databaseUrl, dataDir);
        if (url.dialect() != DatabaseUrl.Dialect.POSTGRESQL) return java.util.Optional.empty();
        return java.util.Optional.of(() -> {
            java.util.Properties props = new java.util.Properties();
            props.putAll(url.properties());
            props.setProperty("connectTimeout", "5");
            // TCP keep-alive: a listener on a connection silently cut would otherwise wait for ever.
            props.setProperty("tcpKeepAlive", "true");
            try {
                return java.sql.DriverManager.getConnection(url.jdbcUrl(), props);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "cannot connect to PostgreSQL at " + url.describe() + ": " + e.getMessage(), e);
            }
        });
    }

    private static HikariDataSource sqlitePool(DatabaseUrl url) {
        Path file = Path.of(url.jdbcUrl().substring("jdbc:sqlite:".length()));
        try {
            if (file.getParent() != null) Files.createDirectories(file.getParent());
            // SQLite creates its -wal and -shm files with the database file's mode, so a database
            // created 0600 keeps all three private whatever the process umask is.
            if (!Files.exists(file)) PrivateFiles.createFile(file);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // another process created it first: fine
        } catch (java.io.IOException e) {
            throw new IllegalStateException(
                    "cannot create the directory of the SQLite file " + file + ": " + e.getMessage(), e);
        }
        HikariConfig config = new HikariConfig();
        config.setPoolName("baton-sqlite");
        config.setJdbcUrl(url.jdbcUrl());
        // WAL: readers never block the writer. busy_timeout covers other processes on the file;
        // in this process SqliteDialect serializes writers itself. IMMEDIATE makes every write
        // transaction take the write lock at BEGIN, so a read-then-update (claim) is atomic and
        // never fails with SQLITE_BUSY on a lock upgrade.
        config.addDataSourceProperty("journal_mode", "WAL");
        config.addDataSourceProperty("synchronous", "NORMAL");
        config.addDataSourceProperty("foreign_keys", "true");
        config.addDataSourceProperty("busy_timeout", "10000");
        config.addDataSourceProperty("transaction_mode", "IMMEDIATE");
        // Otherwise the driver runs a second statement, SELECT last_insert_rowid(), after every
        // INSERT for getGeneratedKeys, which Baton never calls (its inserts use RETURNING).
        config.addDataSourceProperty("jdbc.get_generated_keys", "false");
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(1);
        return connect(config, url);
    }

    private static HikariDataSource postgresPool(DatabaseUrl url) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("baton-postgresql");
        config.setJdbcUrl(url.jdbcUrl());
        config.setDataSourceProperties(url.properties());
        config.addDataSourceProperty("connectTimeout", "5");
        config.setConnectionTimeout(10_000);
        config.setMaximumPoolSize(16);
        return connect(config, url);
    }

    private static HikariDataSource connect(HikariConfig config, DatabaseUrl url) {
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            String what = url.dialect() == DatabaseUrl.Dialect.SQLITE ? "SQLite database" : "PostgreSQL";
            throw new IllegalStateException(
                    "cannot connect to " + what + " at " + url.describe() + ": " + rootMessage(e), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return t instanceof SQLException ? message : DatabaseUrl.redact(message);
    }
}
