package dev.baton.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where the server is and the admin token, for every client command. */
final class ClientOptions {
    static final String DEFAULT_SERVER = "http://127.0.0.1:7700";

    @Option(names = "--server", description = "server URL (env BATON_SERVER; default " + DEFAULT_SERVER + ")")
    String server;

    @Option(names = "--token", description = "admin token (env BATON_ADMIN_TOKEN; default: read --token-file)")
    String token;

    @Option(names = "--token-file", description = "file holding the admin token (default {BATON_DATA_DIR or ./data}/admin-token)")
    Path tokenFile;

    ApiClient client() {
        String url = server != null ? server : System.getenv().getOrDefault("BATON_SERVER", DEFAULT_SERVER);
        return new ApiClient(url.replaceAll("/+$", ""), token());
    }

    private String token() {
        if (token != null) return token;
        String env = System.getenv("BATON_ADMIN_TOKEN");
        if (env != null && !env.isBlank()) return env.strip();
        Path file = tokenFile != null ? tokenFile
                : Path.of(System.getenv().getOrDefault("BATON_DATA_DIR", "data")).resolve("admin-token");
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new ClientException("no admin token: pass --token, set BATON_ADMIN_TOKEN, or --token-file (tried " + file + ")");
        }
    }
}
