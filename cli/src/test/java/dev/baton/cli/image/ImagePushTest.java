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
import java.io.ByteArrayOutputStream;
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
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code baton image push} against a real registry (the server's registry module on its own
 * Javalin, a real SQLite store): OCI layouts, OCI archives and docker-save archives go in, and
 * what comes back out is checked byte for byte, and by skopeo where it is installed.
 */
class ImagePushTest {
    static final String ADMIN = "baton_admin_push_test";
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

    /** Runs the picocli command as `baton image push` would; returns exit code, stdout, stderr. */
    String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new ImageCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        int exit = command.execute(args);
        return new String[] {String.valueOf(exit), out.toString(), err.toString()};
    }

    // ---- test images ------------------------------------------------------------------------

    static byte[] tar(Map<String, byte[]> files) throws IOException {
        return tar(files, Map.of());
    }

    /** A tar (Commons Compress) of {@code files} in name order, then {@code symlinks} (name to target). */
    static byte[] tar(Map<String, byte[]> files, Map<String, String> symlinks) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (var entry : new TreeMap<>(files).entrySet()) {
                TarArchiveEntry e = new TarArchiveEntry(entry.getKey());
                e.setSize(entry.getValue().length);
                e.setModTime(1_700_000_000_000L);
                tar.putArchiveEntry(e);
                tar.write(entry.getValue());
                tar.closeArchiveEntry();
            }
            for (var link : new TreeMap<>(symlinks).entrySet()) {
                TarArchiveEntry e = new TarArchiveEntry(link.getKey(), TarArchiveEntry.LF_SYMLINK);
                e.setLinkName(link.getValue());
                tar.putArchiveEntry(e);
                tar.closeArchiveEntry();
            }
        }
        return out.toByteArray();
    }

    static byte[] gzip(byte[] content) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(content);
        }
        return out.toByteArray();
    }

    static String descriptor(String mediaType, byte[] content) {
        return "{\"mediaType\":\"" + mediaType + "\",\"digest\":\"" + Digest.sha256(content) + "\",\"size\":"
                + content.length + "}";
    }

    record Image(byte[] config, List<byte[]> layers, byte[] manifest) {}

    static Image image(String seed) throws IOException {
        byte[] layer1 = tar(Map.of("etc/hello", ("hello " + seed).getBytes(StandardCharsets.UTF_8)));
        byte[] layer2 = tar(Map.of("bin/tool", ("tool " + seed).repeat(100).getBytes(StandardCharsets.UTF_8)));
        byte[] config =
                ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Cmd\":[\"/bin/tool\"]},\"rootfs\":{\"type\":\"layers\","
                                + "\"diff_ids\":[\"" + Digest.sha256(layer1) + "\",\"" + Digest.sha256(layer2)
                                + "\"]}}")
                        .getBytes(StandardCharsets.UTF_8);
        byte[] gz2 = gzip(layer2);
        byte[] manifest =
                ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":"
                                + descriptor("application/vnd.oci.image.config.v1+json", config) + ",\"layers\":["
                                + descriptor("application/vnd.oci.image.layer.v1.tar", layer1) + ","
                                + descriptor("application/vnd.oci.image.layer.v1.tar+gzip", gz2) + "]}")
                        .getBytes(StandardCharsets.UTF_8);
        return new Image(config, List.of(layer1, gz2), manifest);
    }

    /** The files of an OCI layout holding {@code images} (ref name → image). */
    static Map<String, byte[]> layoutFiles(Map<String, Image> images) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}".getBytes(StandardCharsets.UTF_8));
        StringBuilder index = new StringBuilder("{\"schemaVersion\":2,\"manifests\":[");
        boolean first = true;
        for (var e : images.entrySet()) {
            Image image = e.getValue();
            for (byte[] blob : List.of(image.config, image.layers.get(0), image.layers.get(1), image.manifest)) {
                files.put("blobs/sha256/" + Digest.sha256(blob).hex(), blob);
            }
            if (!first) index.append(',');
            first = false;
            index.append("{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"")
                    .append(Digest.sha256(image.manifest))
                    .append("\",\"size\":")
                    .append(image.manifest.length)
                    .append(",\"annotations\":{\"org.opencontainers.image.ref.name\":\"")
                    .append(e.getKey())
                    .append("\"}}");
        }
        files.put("index.json", index.append("]}").toString().getBytes(StandardCharsets.UTF_8));
        return files;
    }

    static Path writeDirectory(Path dir, Map<String, byte[]> files) throws IOException {
        for (var e : files.entrySet()) {
            Path file = dir.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.write(file, e.getValue());
        }
        return dir;
    }

    void assertPulledBack(String repository, String tag, Image image) throws Exception {
        HttpResponse<byte[]> manifest = get("/v2/" + repository + "/manifests/" + tag);
        assertThat(manifest.statusCode()).isEqualTo(200);
        assertThat(manifest.body()).isEqualTo(image.manifest);
        assertThat(get("/v2/" + repository + "/blobs/" + Digest.sha256(image.config))
                        .body())
                .isEqualTo(image.config);
        for (byte[] layer : image.layers) {
            assertThat(get("/v2/" + repository + "/blobs/" + Digest.sha256(layer))
                            .body())
                    .isEqualTo(layer);
        }
    }

    // ---- tests ------------------------------------------------------------------------------

    @Test
    void pushesAnOciLayoutDirectoryAndPrintsTheDigest() throws Exception {
        Image image = image("layout");
        Path layout = writeDirectory(tmp.resolve("layout"), layoutFiles(Map.of("v1", image)));

        String[] result =
                run("push", "--server", server(), "--token", ADMIN, layout.toString(), "alpha/tools/bench:v1");
        assertThat(result[0]).as(result[2]).isEqualTo("0");
        assertThat(result[1].strip()).isEqualTo(Digest.sha256(image.manifest).toString());
        assertPulledBack("alpha/tools/bench", "v1", image);

        // Pushing again uploads nothing new and yields the same digest.
        String[] again = run("push", "--token", ADMIN, layout.toString(), server() + "/alpha/tools/bench:v2");
        assertThat(again[1].strip()).isEqualTo(Digest.sha256(image.manifest).toString());
        assertThat(again[2]).contains("already present").doesNotContain("uploading");
    }

    @Test
    void picksOneImageOfSeveralByRef() throws Exception {
        Image a = image("a");
        Image b = image("b");
        Path layout = writeDirectory(tmp.resolve("layout"), layoutFiles(new TreeMap<>(Map.of("a", a, "b", b))));
        String[] ambiguous = run("push", "--server", server(), "--token", ADMIN, layout.toString(), "alpha/img:x");
        assertThat(ambiguous[0]).isEqualTo("1");
        assertThat(ambiguous[2]).contains("--ref").contains("[a, b]");

        String[] picked =
                run("push", "--server", server(), "--token", ADMIN, "--ref", "b", layout.toString(), "alpha/img:x");
        assertThat(picked[0]).as(picked[2]).isEqualTo("0");
        assertThat(picked[1].strip()).isEqualTo(Digest.sha256(b.manifest).toString());
        assertPulledBack("alpha/img", "x", b);
    }

    @Test
    void pushesAMultiPlatformIndexWithItsChildren() throws Exception {
        Image amd64 = image("amd64");
        Image arm64 = image("arm64");
        Map<String, byte[]> files = layoutFiles(new TreeMap<>(Map.of("a", amd64, "b", arm64)));
        byte[] index = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"manifests\":["
                        + descriptor("application/vnd.oci.image.manifest.v1+json", amd64.manifest) + ","
                        + descriptor("application/vnd.oci.image.manifest.v1+json", arm64.manifest) + "]}")
                .getBytes(StandardCharsets.UTF_8);
        files.put("blobs/sha256/" + Digest.sha256(index).hex(), index);
        files.put(
                "index.json",
                ("{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"application/vnd.oci.image.index.v1+json\","
                                + "\"digest\":\"" + Digest.sha256(index) + "\",\"size\":" + index.length
                                + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\"multi\"}}]}")
                        .getBytes(StandardCharsets.UTF_8));
        Path layout = writeDirectory(tmp.resolve("layout"), files);

        String[] result = run("push", "--server", server(), "--token", ADMIN, layout.toString(), "alpha/multi:v1");
        assertThat(result[0]).as(result[2]).isEqualTo("0");
        assertThat(result[1].strip()).isEqualTo(Digest.sha256(index).toString());
        HttpResponse<byte[]> top = get("/v2/alpha/multi/manifests/v1");
        assertThat(top.body()).isEqualTo(index);
        assertThat(top.headers().firstValue("Content-Type")).hasValue("application/vnd.oci.image.index.v1+json");
        assertPulledBack("alpha/multi", Digest.sha256(amd64.manifest).toString(), amd64);
        assertPulledBack("alpha/multi", Digest.sha256(arm64.manifest).toString(), arm64);
    }

    @Test
    void pushesAnOciArchiveEvenGzipped() throws Exception {
        Image image = image("archive");
        Path archive = tmp.resolve("image.tar.gz");
        Files.write(archive, gzip(tar(layoutFiles(Map.of("latest", image)))));
        Path tokenFile = Files.writeString(tmp.resolve("admin-token"), ADMIN + "\n");
        String[] result = run(
                "push",
                "--server",
                server(),
                "--token-file",
                tokenFile.toString(),
                archive.toString(),
                "alpha/archived");
        assertThat(result[0]).as(result[2]).isEqualTo("0");
        assertThat(result[1].strip()).isEqualTo(Digest.sha256(image.manifest).toString());
        assertPulledBack("alpha/archived", "latest", image);
    }

    @Test
    void convertsADockerSaveArchiveToAnOciManifest() throws Exception {
        byte[] layer1 = tar(Map.of("etc/os-release", "ID=test\n".getBytes(StandardCharsets.UTF_8)));
        byte[] layer2 = tar(Map.of("app/run.sh", "#!/bin/sh\necho bench\n".getBytes(StandardCharsets.UTF_8)));
        byte[] config = ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Cmd\":[\"/app/run.sh\"]},"
                        + "\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"" + Digest.sha256(layer1) + "\",\""
                        + Digest.sha256(layer2)
                        + "\"]},\"history\":[{\"created_by\":\"test\"},{\"created_by\":\"test\"}]}")
                .getBytes(StandardCharsets.UTF_8);
        String configName = Digest.sha256(config).hex() + ".json";
        String manifestJson = "[{\"Config\":\"" + configName
                + "\",\"RepoTags\":[\"bench:latest\"],\"Layers\":[\"aaa/layer.tar\",\"bbb/layer.tar\"]}]";
        // Legacy docker save layout, with the second layer stored once and linked (as docker does for repeats).
        byte[] archive = tar(
                Map.of(
                        "manifest.json",
                        manifestJson.getBytes(StandardCharsets.UTF_8),
                        configName,
                        config,
                        "aaa/layer.tar",
                        layer1,
                        "ccc/layer.tar",
                        layer2,
                        "repositories",
                        "{}".getBytes(StandardCharsets.UTF_8)),
                Map.of("bbb/layer.tar", "../ccc/layer.tar"));
        Path file = tmp.resolve("docker-save.tar");
        Files.write(file, archive);

        String[] result = run("push", "--server", server(), "--token", ADMIN, file.toString(), "alpha/bench:v1");
        assertThat(result[0]).as(result[2]).isEqualTo("0");
        String digest = result[1].strip();

        HttpResponse<byte[]> manifest = get("/v2/alpha/bench/manifests/v1");
        assertThat(manifest.headers().firstValue("Docker-Content-Digest")).hasValue(digest);
        assertThat(Digest.sha256(manifest.body()).toString()).isEqualTo(digest);
        JsonNode m = JSON.readTree(manifest.body());
        assertThat(m.get("mediaType").asText()).isEqualTo("application/vnd.oci.image.manifest.v1+json");
        assertThat(m.get("config").get("digest").asText())
                .isEqualTo(Digest.sha256(config).toString());
        assertThat(m.get("config").get("mediaType").asText()).isEqualTo("application/vnd.oci.image.config.v1+json");
        assertThat(m.get("layers")).hasSize(2);
        assertThat(m.get("layers").get(0).get("digest").asText())
                .isEqualTo(Digest.sha256(layer1).toString());
        assertThat(m.get("layers").get(1).get("digest").asText())
                .isEqualTo(Digest.sha256(layer2).toString());
        assertThat(m.get("layers").get(1).get("mediaType").asText())
                .isEqualTo("application/vnd.oci.image.layer.v1.tar");
        assertThat(get("/v2/alpha/bench/blobs/" + Digest.sha256(layer2)).body()).isEqualTo(layer2);

        // A real client reads the converted image, config included.
        if (skopeoPresent()) {
            Process p = new ProcessBuilder(
                            "skopeo",
                            "--insecure-policy",
                            "inspect",
                            "--tls-verify=false",
                            "--creds",
                            "baton:" + ADMIN,
                            "docker://127.0.0.1:" + app.port() + "/alpha/bench:v1")
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            JsonNode inspected = JSON.readTree(out);
            assertThat(inspected.get("Digest").asText()).isEqualTo(digest);
            assertThat(inspected.get("Architecture").asText()).isEqualTo("amd64");
            assertThat(inspected.get("Layers")).hasSize(2);
        }
    }

    @Test
    void reportsBadSourcesAndRefusedCredentialsClearly() throws Exception {
        Path layout = writeDirectory(tmp.resolve("layout"), layoutFiles(Map.of("v1", image("x"))));
        String[] noToken = run("push", "--server", server(), "--token", "wrong", layout.toString(), "alpha/img:v1");
        assertThat(noToken[0]).isEqualTo("1");
        assertThat(noToken[2]).contains("HTTP 401");

        String[] unknownProject = run("push", "--server", server(), "--token", ADMIN, layout.toString(), "nope/img:v1");
        assertThat(unknownProject[0]).isEqualTo("1");
        assertThat(unknownProject[2]).contains("NAME_UNKNOWN");

        Files.delete(tmp.resolve("layout/index.json"));
        String[] notLayout = run("push", "--server", server(), "--token", ADMIN, layout.toString(), "alpha/img:v1");
        assertThat(notLayout[0]).isEqualTo("1");
        assertThat(notLayout[2]).contains("not an OCI image layout");

        String[] badDestination = run("push", "--server", server(), "--token", ADMIN, layout.toString(), "Alpha/IMG");
        assertThat(badDestination[2]).contains("invalid repository");
    }

    static boolean skopeoPresent() {
        try {
            return new ProcessBuilder("skopeo", "--version").start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
