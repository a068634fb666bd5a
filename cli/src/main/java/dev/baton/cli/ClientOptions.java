package dev.baton.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Where the server is and the token (a user's API token or the admin token), for every client command. Each is looked up in order:
 * the flag, the environment, the config file ({@link CliEnvironment#configFile()}), and the default
 * (the local server of {@code baton up} and its {@code data/admin-token}).
 */
final class ClientOptions {
    static final String DEFAULT_SERVER = "http://127.0.0.1:7700";

    @Option(
            names = "--server",
            description = "server URL (env BATON_SERVER, config 'server'; default " + DEFAULT_SERVER + ")")
    String server;

    @Option(
            names = "--token",
            description =
                    "API token or admin token (env BATON_TOKEN, config 'token' as 'baton login' writes it; default: read --token-file)")
    String token;

    @Option(
            names = "--token-file",
            description =
                    "file holding the token (config 'token_file'; default {BATON_DATA_DIR or ./data}/admin-token)")
    Path tokenFile;

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec mixee;

    ApiClient client() {
        CliEnvironment env = Baton.environment(mixee);
        ClientConfig file = ClientConfig.read(env.configFile());
        String url = first(server, env.env("BATON_SERVER"), file.get("server"), DEFAULT_SERVER);
        return new ApiClient(url.replaceAll("/+$", ""), token(env, file));
    }

    /** Flags first (--token, then --token-file), then the environment, then the config file, then the local server's admin token. */
    private String token(CliEnvironment env, ClientConfig config) {
        if (token != null) return token;
        if (tokenFile != null) return read(env, tokenFile);
        String direct = first(env.env("BATON_TOKEN"), env.env("BATON_ADMIN_TOKEN"), config.get("token"), null);
        if (direct != null) return direct;
        Path file = config.get("token_file") != null
                ? Path.of(config.get("token_file"))
                : Path.of(first(env.env("BATON_DATA_DIR"), "data", null, null)).resolve("admin-token");
        return read(env, file);
    }

    private static String read(CliEnvironment env, Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new ClientException("no token: run 'baton login', pass --token, set BATON_TOKEN, put 'token = …' in "
                    + env.configFile() + ", or --token-file (tried " + file + ")");
        }
    }

    private static String first(String a, String b, String c, String d) {
        return a != null ? a : b != null ? b : c != null ? c : d;
    }
}
