package dev.baton.cli.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import dev.baton.registry.RegistryModule;
import dev.baton.store.Project;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.blob.Digest;
import dev.baton.store.token.RegistryTokens;
import io.javalin.Javalin;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code baton image push DIR}: a plain directory becomes a one-layer image in a real registry
 * (the server's registry module on its own Javalin, a real SQLite store). What comes back is read
 * as a tar, and unpacked by umoci where it is installed.
 */
@Tag("container")
class DirectoryImagePushTest {
    static final String ADMIN = "baton_admin_dir_push_test";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    Store store;
    Javalin app;
    HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        Path data = tmp.resolve("data");
        store = StoreFactory.open(null, data);
        long org = store.organizations()
                .createOrganization(
                        "Org", Slug.of("org"), PlanTier.FREE, Clock.systemUTC().instant())
                .id();
        store.organizations()
                .createProject(org, "Alpha", Slug.of("alpha"), Clock.systemUTC().instant());
        ServerConfig config = ServerConfig.defaults(data);
        RegistryTokens tokens = RegistryTokens.open(data, config.pullTokenTtl());
        RegistryModule module = RegistryModule.open(
                config,
                dev.baton.store.blob.BlobStorage.directory(data.resolve("storage")),
                store,
                dev.baton.registry.Credentials.adminOnly(candidate -> MessageDigest.isEqual(
                        ADMIN.getBytes(StandardCharsets.UTF_8), candidate.getBytes(StandardCharsets.UTF_8))),
                id -> store.organizations().findProject(id).map(Project::uuid),
                tokens,
                Clock.systemUTC());
        app = Javalin.create(module::addRoutes).start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        app.stop();
        store.close();
    }

    String server() {
        return "http://127.0.0.1:" + app.port();
    }

    HttpResponse<byte[]> get(String path) throws Exception {
        String basic =
                "Basic " + Base64.getEncoder().encodeToString(("baton:" + ADMIN).getBytes(StandardCharsets.UTF_8));
        return http.send(
                HttpRequest.newBuilder(URI.create(server() + path))
                        .header("Authorization", basic)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    record Result(int exit, String out, String err) {}

    Result push(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new ImageCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of("push", "--server", server(), "--token", ADMIN));
        all.addAll(List.of(args));
        int exit = command.execute(all.toArray(String[]::new));
        return new Result(exit, out.toString(), err.toString());
    }

    /** A small root filesystem: a file, an executable, a nested directory, relative and absolute symlinks. */
    static Path tree(Path dir) throws IOException {
        Files.createDirectories(dir.resolve("bin"));
        Files.createDirectories(dir.resolve("data/nested"));
        Files.writeString(dir.resolve("etc-hello"), "hello\n");
        Path tool = Files.writeString(dir.resolve("bin/tool"), "#!/bin/sh\necho tool \"$@\"\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(dir.resolve("etc-hello"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.writeString(dir.resolve("data/nested/input.txt"), "42\n");
        Files.createSymbolicLink(dir.resolve("bin/link"), Path.of("tool"));
        Files.createSymbolicLink(dir.resolve("data/abs"), Path.of("/bin/tool"));
        return dir;
    }

    JsonNode manifest(String repository, String reference) throws Exception {
        HttpResponse<byte[]> response = get("/v2/" + repository + "/manifests/" + reference);
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    @Test
    void pushesADirectoryAsAOneLayerImageWithItsConfig() throws Exception {
        Path dir = tree(tmp.resolve("img"));
        Result result = push(
                "--entrypoint",
                "/bin/tool",
                "--cmd",
                "run",
                "--cmd",
                "-c",
                "--env",
                "A=1",
                "--env",
                "B=x=y",
                "--workdir",
                "/data",
                dir.toString(),
                "alpha/tools:v1");
        assertThat(result.exit()).as(result.err()).isZero();
        String digest = result.out().strip();

        HttpResponse<byte[]> top = get("/v2/alpha/tools/manifests/v1");
        assertThat(Digest.sha256(top.body()).toString()).isEqualTo(digest);
        JsonNode manifest = JSON.readTree(top.body());
        assertThat(manifest.path("mediaType").asText()).isEqualTo("application/vnd.oci.image.manifest.v1+json");
        assertThat(manifest.path("layers")).hasSize(1);
        JsonNode layerDescriptor = manifest.path("layers").get(0);
        assertThat(layerDescriptor.path("mediaType").asText()).isEqualTo("application/vnd.oci.image.layer.v1.tar+gzip");

        byte[] configBytes = get("/v2/alpha/tools/blobs/"
                        + manifest.path("config").path("digest").asText())
                .body();
        assertThat(Digest.sha256(configBytes).toString())
                .isEqualTo(manifest.path("config").path("digest").asText());
        JsonNode config = JSON.readTree(configBytes);
        assertThat(config.path("os").asText()).isEqualTo("linux");
        assertThat(config.path("architecture").asText())
                .isEqualTo(RootFilesystem.hostArchitecture())
                .isIn("amd64", "arm64");
        assertThat(config.path("config").path("Entrypoint").toString()).isEqualTo("[\"/bin/tool\"]");
        assertThat(config.path("config").path("Cmd").toString()).isEqualTo("[\"run\",\"-c\"]");
        assertThat(config.path("config").path("Env").toString())
                .isEqualTo("[\"" + ContainerConfig.DEFAULT_PATH + "\",\"A=1\",\"B=x=y\"]");
        assertThat(config.path("config").path("WorkingDir").asText()).isEqualTo("/data");

        byte[] layer = get("/v2/alpha/tools/blobs/"
                        + layerDescriptor.path("digest").asText())
                .body();
        assertThat(layer).hasSize(layerDescriptor.path("size").asInt());
        byte[] tar;
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(layer))) {
            tar = in.readAllBytes();
        }
        assertThat(config.path("rootfs").path("diff_ids").toString()).isEqualTo("[\"" + Digest.sha256(tar) + "\"]");

        List<String> names = new ArrayList<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(tar))) {
            for (TarArchiveEntry e; (e = in.getNextEntry()) != null; ) {
                names.add(e.getName());
                assertThat(e.getModTime().getTime()).as(e.getName()).isZero();
                assertThat(e.getLongUserId()).isZero();
                assertThat(e.getLongGroupId()).isZero();
                switch (e.getName()) {
                    case "bin/tool" -> {
                        assertThat(e.getMode() & 07777).isEqualTo(0755);
                        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                                .contains("echo tool");
                    }
                    case "etc-hello" -> assertThat(e.getMode() & 07777).isEqualTo(0644);
                    case "bin/link" ->
                        assertThat(e.isSymbolicLink() && e.getLinkName().equals("tool"))
                                .isTrue();
                    case "data/abs" ->
                        assertThat(e.isSymbolicLink() && e.getLinkName().equals("/bin/tool"))
                                .isTrue();
                    case "data/nested/" -> assertThat(e.isDirectory()).isTrue();
                    default -> {}
                }
            }
        }
        assertThat(names)
                .containsExactly(
                        "bin/",
                        "bin/link",
                        "bin/tool",
                        "data/",
                        "data/abs",
                        "data/nested/",
                        "data/nested/input.txt",
                        "etc-hello");
    }

    @Test
    void theSameDirectoryGivesTheSameDigest() throws Exception {
        Path dir = tree(tmp.resolve("one"));
        Result first = push("--cmd", "/bin/tool", dir.toString(), "alpha/same:v1");
        assertThat(first.exit()).as(first.err()).isZero();
        Result again = push("--cmd", "/bin/tool", dir.toString(), "alpha/same:v2");
        assertThat(again.out().strip()).isEqualTo(first.out().strip());
        assertThat(again.err()).contains("already present").doesNotContain("uploading");

        // A copy made elsewhere, later, with other timestamps: still the same image.
        Path copy = tree(tmp.resolve("two"));
        Files.setLastModifiedTime(copy.resolve("bin/tool"), FileTime.fromMillis(1_000_000_000_000L));
        Files.setLastModifiedTime(copy.resolve("data"), FileTime.fromMillis(1_000_000_000_000L));
        assertThat(push("--cmd", "/bin/tool", copy.toString(), "alpha/same:v3")
                        .out()
                        .strip())
                .isEqualTo(first.out().strip());

        // Whereas a changed mode, or other options, make another image.
        Files.setPosixFilePermissions(copy.resolve("etc-hello"), PosixFilePermissions.fromString("rw-------"));
        assertThat(push("--cmd", "/bin/tool", copy.toString(), "alpha/same:v4")
                        .out()
                        .strip())
                .isNotEqualTo(first.out().strip());
        assertThat(push("--cmd", "/bin/sh", dir.toString(), "alpha/same:v5")
                        .out()
                        .strip())
                .isNotEqualTo(first.out().strip());
    }

    @Test
    void refusesASymlinkOutOfTheDirectoryAndSpecialFiles() throws Exception {
        Path escaping = tree(tmp.resolve("escaping"));
        Files.createSymbolicLink(escaping.resolve("data/nested/out"), Path.of("../../../secret"));
        Result refused = push(escaping.toString(), "alpha/bad:v1");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("data/nested/out").contains("points outside the directory");
        assertThat(get("/v2/alpha/bad/manifests/v1").statusCode()).isEqualTo(404);

        // Climbing and coming back inside is fine.
        Path inside = tree(tmp.resolve("inside"));
        Files.createSymbolicLink(inside.resolve("data/nested/back"), Path.of("../../bin/tool"));
        assertThat(push(inside.toString(), "alpha/ok:v1").exit()).isZero();

        Path fifo = tree(tmp.resolve("fifo"));
        assertThat(new ProcessBuilder("mkfifo", fifo.resolve("data/pipe").toString())
                        .start()
                        .waitFor())
                .isZero();
        Result special = push(fifo.toString(), "alpha/bad:v2");
        assertThat(special.exit()).isEqualTo(1);
        assertThat(special.err()).contains("data/pipe is a device file, FIFO or socket");

        // A device node needs root (or CAP_MKNOD) to make; where this runs as root it is checked too.
        Path device = tree(tmp.resolve("device"));
        Files.createDirectories(device.resolve("dev"));
        if (new ProcessBuilder("mknod", device.resolve("dev/null").toString(), "c", "1", "3")
                        .start()
                        .waitFor()
                == 0) {
            Result refusedDevice = push(device.toString(), "alpha/bad:v3");
            assertThat(refusedDevice.exit()).isEqualTo(1);
            assertThat(refusedDevice.err()).contains("dev/null is a device file");
        }
    }

    @Test
    void imageOptionsAreRefusedWhereTheyMeanNothing() throws Exception {
        Path layout = TestImages.layout(tmp.resolve("layout"), "x");
        Result withCmd = push("--cmd", "/bin/sh", layout.toString(), "alpha/img:v1");
        assertThat(withCmd.exit()).isEqualTo(1);
        assertThat(withCmd.err()).contains("apply only to a plain directory");

        Path dir = tree(tmp.resolve("img"));
        Result withRef = push("--ref", "latest", dir.toString(), "alpha/img:v1");
        assertThat(withRef.exit()).isEqualTo(1);
        assertThat(withRef.err()).contains("--ref").contains("plain directory");

        assertThat(push("--env", "NOVALUE", dir.toString(), "alpha/img:v1").err())
                .contains("--env takes KEY=VALUE");
        assertThat(push("--workdir", "data", dir.toString(), "alpha/img:v1").err())
                .contains("--workdir must be an absolute path");
        assertThat(get("/v2/alpha/img/manifests/v1").statusCode()).isEqualTo(404);
    }

    /**
     * A real tool reads the image: its manifest and blobs, fetched back from the registry into an
     * OCI layout, are unpacked by umoci into a runtime bundle.
     */
    @Test
    void umociUnpacksThePushedImage() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(installed("umoci"), "umoci is not installed");
        Path dir = tree(tmp.resolve("img"));
        Result pushed =
                push("--cmd", "/bin/tool", "--env", "A=1", "--workdir", "/data", dir.toString(), "alpha/real:v1");
        assertThat(pushed.exit()).as(pushed.err()).isZero();

        Path oci = Files.createDirectories(tmp.resolve("oci/blobs/sha256"));
        byte[] manifestBytes = get("/v2/alpha/real/manifests/v1").body();
        Files.write(oci.resolve(Digest.sha256(manifestBytes).hex()), manifestBytes);
        JsonNode manifest = JSON.readTree(manifestBytes);
        List<JsonNode> blobs = new ArrayList<>(List.of(manifest.path("config")));
        manifest.path("layers").forEach(blobs::add);
        for (JsonNode blob : blobs) {
            String digest = blob.path("digest").asText();
            Files.write(
                    oci.resolve(digest.substring("sha256:".length())),
                    get("/v2/alpha/real/blobs/" + digest).body());
        }
        Files.writeString(tmp.resolve("oci/oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        Files.writeString(
                tmp.resolve("oci/index.json"),
                "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                        + "\"digest\":\"" + Digest.sha256(manifestBytes) + "\",\"size\":" + manifestBytes.length
                        + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\"v1\"}}]}");
        Path bundle = tmp.resolve("bundle");
        exec("umoci", "unpack", "--rootless", "--image", tmp.resolve("oci") + ":v1", bundle.toString());
        Path rootfs = bundle.resolve("rootfs");
        assertThat(Files.readString(rootfs.resolve("data/nested/input.txt"))).isEqualTo("42\n");
        assertThat(Files.isExecutable(rootfs.resolve("bin/tool"))).isTrue();
        assertThat(Files.readSymbolicLink(rootfs.resolve("bin/link"))).isEqualTo(Path.of("tool"));
        assertThat(Files.readSymbolicLink(rootfs.resolve("data/abs"))).isEqualTo(Path.of("/bin/tool"));
        JsonNode runtime = JSON.readTree(bundle.resolve("config.json").toFile());
        assertThat(runtime.path("process").path("args").toString()).isEqualTo("[\"/bin/tool\"]");
        assertThat(runtime.path("process").path("cwd").asText()).isEqualTo("/data");
        assertThat(runtime.path("process").path("env").toString()).contains("\"A=1\"");
    }

    static boolean installed(String tool) {
        try {
            return new ProcessBuilder(tool, "--version")
                            .redirectErrorStream(true)
                            .start()
                            .waitFor()
                    == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    static void exec(String... command) throws Exception {
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + "\n" + out).isZero();
    }
}
