package dev.baton.runner.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.message.ServerMessage;
import io.javalin.Javalin;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Self-update over real HTTP (a local server hosting the new jar). */
class SelfUpdaterTest {
    @TempDir
    Path dir;

    private Javalin web;
    private byte[] newJar;
    private Path jar;

    @BeforeEach
    void setUp() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry("META-INF/MANIFEST.MF"));
            zip.write("Manifest-Version: 1.0\nImplementation-Version: 2.0.0\n".getBytes());
        }
        newJar = bytes.toByteArray();
        web = Javalin.create(c -> {
                    c.startup.showJavalinBanner = false;
                    c.routes.get("/baton.jar", ctx -> ctx.result(newJar));
                    c.routes.get("/not-a-jar", ctx -> ctx.result("hello"));
                })
                .start("127.0.0.1", 0);
        jar = Files.write(dir.resolve("baton.jar"), "old version".getBytes());
    }

    @AfterEach
    void tearDown() {
        web.stop();
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private SelfUpdater updater() {
        return new SelfUpdater(HttpClient.newHttpClient(), jar, 1 << 20);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + web.port() + path;
    }

    @Test
    void verifiedDownloadReplacesTheJar() throws Exception {
        updater().install(new ServerMessage.Update("2.0.0", url("/baton.jar"), "sha256:" + sha256(newJar)));
        assertThat(Files.readAllBytes(jar)).isEqualTo(newJar);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(jar); // no temporary file left
        }
    }

    @Test
    void aBadChecksumLeavesTheRunningVersion() throws Exception {
        String wrong = sha256("something else".getBytes());
        assertThatThrownBy(() -> updater().install(new ServerMessage.Update("2.0.0", url("/baton.jar"), wrong)))
                .isInstanceOf(UpdateException.class)
                .hasMessageContaining("checksum mismatch");
        assertThat(jar).hasContent("old version");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(jar);
        }
    }

    @Test
    void aDownloadThatIsNotAJarIsRefused() throws Exception {
        assertThatThrownBy(() -> updater()
                        .install(new ServerMessage.Update("2.0.0", url("/not-a-jar"), sha256("hello".getBytes()))))
                .isInstanceOf(UpdateException.class)
                .hasMessageContaining("not a jar");
        assertThat(jar).hasContent("old version");
    }

    @Test
    void badInputIsRefusedBeforeAnyDownload() {
        assertThatThrownBy(() -> updater().install(new ServerMessage.Update("2", url("/baton.jar"), "md5:abc")))
                .isInstanceOf(UpdateException.class)
                .hasMessageContaining("SHA-256");
        assertThatThrownBy(() -> updater().install(new ServerMessage.Update("2", "file:///etc/passwd", "0".repeat(64))))
                .isInstanceOf(UpdateException.class)
                .hasMessageContaining("http");
        assertThatThrownBy(() -> updater().install(new ServerMessage.Update("2", url("/missing"), "0".repeat(64))))
                .isInstanceOf(UpdateException.class)
                .hasMessageContaining("404");
    }
}
