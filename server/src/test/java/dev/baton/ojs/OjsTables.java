package dev.baton.ojs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The OJS door's tables, for the conformance harness's reset between cases. The list is not
 * written down anywhere: {@link #in} reads the tables named {@code ojs_*} from the database
 * (whatever the migrations made), and {@link #created} reads the ones the OJS migrations create,
 * so that OjsTablesTest can check that the two agree (an OJS table named otherwise would escape
 * the reset).
 */
final class OjsTables {
    private static final Pattern CREATE_TABLE =
            Pattern.compile("CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)", Pattern.CASE_INSENSITIVE);

    private OjsTables() {}

    /** The tables named {@code ojs_*} in the connection's schema (SQLite: the database). */
    static Set<String> in(Connection c) throws SQLException {
        Set<String> tables = new TreeSet<>();
        try (ResultSet rs = c.getMetaData().getTables(null, c.getSchema(), "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                String name = rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT);
                if (name.startsWith("ojs_")) tables.add(name);
            }
        }
        return tables;
    }

    /** Deletes every row of every OJS table: what a fresh server's OJS door starts with. */
    static void empty(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (String table : in(c)) st.executeUpdate("DELETE FROM " + table);
        }
    }

    /**
     * The tables the dialect's OJS migrations ({@code db/migration/<dialect>/V*__ojs*.sql}, and any
     * in {@code db/migration/common}) create, read from the store module's classes.
     */
    static Set<String> created(String dialect) {
        Set<String> tables = new TreeSet<>(createdIn("common"));
        tables.addAll(createdIn(dialect));
        return tables;
    }

    /** The tables the OJS migrations of one folder create: a directory in an IDE, a jar in a Maven build. */
    private static Set<String> createdIn(String folder) {
        try {
            URI location =
                    OjsTables.class.getResource("/db/migration/" + folder).toURI();
            if (!"jar".equals(location.getScheme())) return createdIn(Path.of(location));
            try (FileSystem jar = FileSystems.newFileSystem(location, Map.of())) {
                return createdIn(jar.provider().getPath(location));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<String> createdIn(Path migrations) throws IOException {
        Set<String> tables = new TreeSet<>();
        try (Stream<Path> files = Files.list(migrations)) {
            for (Path file : files.filter(f -> f.getFileName().toString().matches("V\\d+__ojs.*\\.sql"))
                    .toList()) {
                Matcher m = CREATE_TABLE.matcher(Files.readString(file));
                while (m.find()) tables.add(m.group(1).toLowerCase(Locale.ROOT));
            }
        }
        return tables;
    }
}
