package dev.baton.server.store;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The store contract on a real PostgreSQL: {@code BATON_TEST_PG_URL} or 127.0.0.1:5432/test.
 * Each test gets a schema of its own (created here, migrated by the store through
 * {@code currentSchema}, dropped afterwards). Without a reachable server the tests are skipped
 * with a message saying so; CI starts one, so there they run.
 */
class PostgresStoreTest extends StoreContract {
    private static final String BASE = System.getenv().getOrDefault("BATON_TEST_PG_URL", "postgresql://127.0.0.1:5432/test");

    private String schema;
    private String adminUrl;

    @Override
    protected Store openStore() throws SQLException {
        adminUrl = reachableUrl();
        assumeTrue(adminUrl != null, "PostgreSQL not reachable at " + DatabaseUrl.redact(BASE) + ", skipping the PostgreSQL store contract");
        schema = "baton_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        return StoreFactory.open(adminUrl + "&currentSchema=" + schema, null);
    }

    @Override
    protected void dropStore() throws SQLException {
        if (schema == null) return;
        try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }

    /**
     * A JDBC URL (with a user) that connects, or null. Trust-auth test databases differ in their
     * superuser's name, so without a user in the URL both usual ones are tried.
     */
    private static String reachableUrl() {
        DatabaseUrl parsed = DatabaseUrl.parse(BASE, null);
        String jdbc = parsed.jdbcUrl() + (parsed.jdbcUrl().contains("?") ? "&" : "?") + "connectTimeout=3";
        List<String> users = parsed.properties().containsKey("user") || parsed.jdbcUrl().contains("user=")
                ? List.of("") : List.of("postgres", "root");
        for (String user : users) {
            String url = jdbc;
            if (!user.isEmpty()) url += "&user=" + user;
            if (parsed.properties().containsKey("user")) url += "&user=" + parsed.properties().getProperty("user");
            if (parsed.properties().containsKey("password")) url += "&password=" + parsed.properties().getProperty("password");
            try (Connection c = DriverManager.getConnection(url)) {
                return url;
            } catch (SQLException e) {
                // try the next user; none left means not reachable
            }
        }
        return null;
    }
}
