package dev.baton.cli.image;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton image push}: no Docker daemon needed, prints the digest to pass to {@code baton run}. */
@Command(
        name = "push",
        mixinStandardHelpOptions = true,
        description = {
            "Push an OCI image layout directory, an OCI archive, or a docker/podman save archive to Baton's registry;",
            "or a plain directory, pushed as the root filesystem of a one-layer image (no Docker needed).",
            "Prints the manifest digest (sha256:...) to pass to `baton run`; progress goes to stderr."
        })
public final class ImagePushCommand implements Callable<Integer> {
    @Parameters(
            index = "0",
            paramLabel = "SOURCE",
            description = "OCI layout directory, .tar/.tar.gz archive, or a plain directory holding the image's files")
    Path source;

    @Parameters(
            index = "1",
            paramLabel = "DESTINATION",
            description =
                    "<project>/<name>[:<tag>] (project UUID or slug), or http(s)://host:port/<project>/<name>[:<tag>]")
    String destination;

    @Option(
            names = "--server",
            defaultValue = "${env:BATON_SERVER:-http://127.0.0.1:7700}",
            description = "Baton server URL when DESTINATION names none (default: $BATON_SERVER or ${DEFAULT-VALUE})")
    String server;

    @Option(
            names = "--token",
            description =
                    "API token (submitter or more on the project), admin token, or a registry token (env BATON_TOKEN; default: read --token-file)")
    String token;

    @Option(
            names = "--token-file",
            description = "file holding the token (default {BATON_DATA_DIR or ./data}/admin-token)")
    Path tokenFile;

    @Option(names = "--ref", description = "which image, when the source holds several: its ref name or repo tag")
    String ref;

    @Option(
            names = "--entrypoint",
            paramLabel = "WORD",
            description =
                    "plain directory only: a word of the image's entrypoint; repeat for each word (--entrypoint=--json for a word that is one of these options)")
    List<String> entrypoint;

    @Option(
            names = "--cmd",
            paramLabel = "WORD",
            description =
                    "plain directory only: a word of the image's command; repeat for each word, e.g. --cmd /bin/sh --cmd -c --cmd 'echo hi'")
    List<String> cmd;

    @Option(
            names = "--env",
            paramLabel = "KEY=VALUE",
            description =
                    "plain directory only: an environment variable of the image; repeatable (PATH defaults to Docker's)")
    List<String> env;

    @Option(
            names = "--workdir",
            paramLabel = "DIR",
            description = "plain directory only: the image's working directory (absolute)")
    String workdir;

    @Option(names = "--json", description = "print {\"digest\": …} instead of the bare digest")
    boolean json;

    @Spec
    CommandSpec spec;

    /** The same lookup as the other client commands; null when there is none (then the push goes anonymous). */
    private String token() throws IOException {
        if (token != null) return token;
        if (tokenFile != null) return Files.readString(tokenFile).strip();
        for (String name : new String[] {"BATON_TOKEN", "BATON_ADMIN_TOKEN"}) {
            String env = System.getenv(name);
            if (env != null && !env.isBlank()) return env.strip();
        }
        Path file =
                Path.of(System.getenv().getOrDefault("BATON_DATA_DIR", "data")).resolve("admin-token");
        return Files.isReadable(file) ? Files.readString(file).strip() : null;
    }

    @Override
    public Integer call() throws Exception {
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
        try {
            ContainerConfig container = new ContainerConfig(entrypoint, cmd, env, workdir);
            String digest = new ImagePusher(http, spec.commandLine().getErr())
                    .push(source, ref, container, destination, server, token());
            spec.commandLine().getOut().println(json ? "{\"digest\": \"" + digest + "\"}" : digest);
            spec.commandLine().getOut().flush();
            return 0;
        } catch (ImageSourceException | RegistryClientException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("baton: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        }
    }
}
