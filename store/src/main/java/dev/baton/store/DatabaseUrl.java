package dev.baton.store;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A database URL as an operator writes it, resolved to a dialect and a JDBC URL. Accepted:
 * nothing (the SQLite file {@code baton.db} in the data directory), {@code sqlite:/path},
 * {@code jdbc:sqlite:/path}, {@code postgresql://…} or {@code postgres://…} (libpq style, user
 * and password in the authority or the query) and {@code jdbc:postgresql://…}.
 *
 * @param properties connection properties split out of the URL (user, password), never logged
 */
record DatabaseUrl(Dialect dialect, String jdbcUrl, Properties properties) {

    enum Dialect {
        SQLITE,
        POSTGRESQL
    }

    static DatabaseUrl parse(String url, Path dataDir) {
        if (url == null || url.isBlank()) {
            if (dataDir == null)
                throw new IllegalArgumentException("no database URL and no data directory for the default SQLite file");
            return sqlite(dataDir.resolve("baton.db"));
        }
        String text = url.strip();
        if (text.startsWith("jdbc:sqlite:")) return sqliteText(text.substring("jdbc:sqlite:".length()), url);
        if (text.startsWith("sqlite:")) return sqliteText(text.substring("sqlite:".length()), url);
        if (text.startsWith("jdbc:postgresql:")) return new DatabaseUrl(Dialect.POSTGRESQL, text, new Properties());
        if (text.startsWith("postgresql://")) return postgres(text.substring("postgresql://".length()), url);
        if (text.startsWith("postgres://")) return postgres(text.substring("postgres://".length()), url);
        throw new IllegalArgumentException(
                "unsupported database URL '" + redact(url)
                        + "': use sqlite:/path/to/file.db, postgresql://host:port/database?user=… or a jdbc:sqlite:/jdbc:postgresql: URL");
    }

    /** The URL without credentials, for messages and logs. */
    String describe() {
        return redact(jdbcUrl);
    }

    private static DatabaseUrl sqliteText(String path, String original) {
        if (path.startsWith("//")) path = path.substring(2); // sqlite:///abs/path
        if (path.isEmpty()) throw new IllegalArgumentException("database URL '" + original + "' names no SQLite file");
        return sqlite(Path.of(path));
    }

    private static DatabaseUrl sqlite(Path file) {
        return new DatabaseUrl(Dialect.SQLITE, "jdbc:sqlite:" + file.toAbsolutePath(), new Properties());
    }

    private static DatabaseUrl postgres(String rest, String original) {
        URI uri;
        try {
            uri = new URI("postgresql://" + rest);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("malformed PostgreSQL URL '" + redact(original) + "': " + e.getReason());
        }
        if (uri.getHost() == null)
            throw new IllegalArgumentException("PostgreSQL URL '" + redact(original) + "' names no host");
        String database = uri.getRawPath() == null || uri.getRawPath().length() <= 1
                ? ""
                : uri.getRawPath().substring(1);
        Properties props = new Properties();
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            props.setProperty("user", decode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
            if (colon >= 0) props.setProperty("password", decode(userInfo.substring(colon + 1)));
        }
        StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
        if (uri.getPort() > 0) jdbc.append(':').append(uri.getPort());
        jdbc.append('/').append(database);
        if (uri.getRawQuery() != null && !uri.getRawQuery().isEmpty())
            jdbc.append('?').append(uri.getRawQuery());
        return new DatabaseUrl(Dialect.POSTGRESQL, jdbc.toString(), props);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** Drops user info and password parameters so that secrets never reach a message. */
    static String redact(String url) {
        return url.replaceAll("//[^/@]*@", "//***@").replaceAll("(?i)(password=)[^&]*", "$1***");
    }
}
