package dev.baton.runner.oci;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.runner.testing.TarWriter;
import dev.baton.runner.testing.TestImages;
import io.javalin.Javalin;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pulls over real HTTP from a minimal registry stand-in serving an OCI layout (the real registry
 * lands in its own issue): bearer token checked, every digest verified.
 */
class ImagePullerTest {
    @TempDir
    Path tmp;

    private Javalin registry;
    private TestImages.Image image;
    private final List<String> progress = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        image = TestImages.write(
                tmp.resolve("layout"),
                List.of("echo", "hi"),
                List.of(new TarWriter().file("hello.txt", "hello").tarGz()));
        Path blobs = image.layout().resolve("blobs/sha256");
        registry = Javalin.create(config -> {
                    config.startup.showJavalinBanner = false;
                    config.routes.get("/v2/{name}/{kind}/{digest}", ctx -> {
                        if (!"Bearer good-token".equals(ctx.header("Authorization"))) {
                            ctx.status(401).result("{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}");
                            return;
                        }
                        Path blob = blobs.resolve(ctx.pathParam("digest").replace("sha256:", ""));
                        if (!ctx.pathParam("name").equals("project-1") || !Files.exists(blob)) {
                            ctx.status(404);
                            return;
                        }
                        ctx.result(Files.readAllBytes(blob));
                    });
                })
                .start("127.0.0.1", 0);
    }

    @AfterEach
    void tearDown() {
        registry.stop();
    }

    private RegistryBlobSource source(String token) {
        return new RegistryBlobSource(
                HttpClient.newHttpClient(), "http://127.0.0.1:" + registry.port(), "project-1", token);
    }

    @Test
    void pullsAndVerifiesEveryBlob() throws Exception {
        var pulled = new ImagePuller(tmp.resolve("cache"), Architecture.X86_64)
                .pull(source("good-token"), image.digest(), progress::add);
        assertThat(pulled.config().cmd()).containsExactly("echo", "hi");
        assertThat(pulled.layers()).singleElement().satisfies(l -> {
            assertThat(l.digest()).isEqualTo(image.layerDigests().getFirst());
            assertThat(TestImages.sha256(Files.readAllBytes(l.blob())))
                    .isEqualTo(l.digest().substring(7));
        });
        assertThat(progress).contains("pulling manifest", "pulling layer 1/1");
        Path rootfs = Files.createDirectories(tmp.resolve("rootfs"));
        new LayerUnpacker(rootfs, LayerUnpacker.IdShift.NONE)
                .apply(
                        pulled.layers().getFirst().blob(),
                        pulled.layers().getFirst().mediaType());
        assertThat(rootfs.resolve("hello.txt")).hasContent("hello");
    }

    @Test
    void aWrongTokenIsAPullDenial() {
        assertThatThrownBy(() -> new ImagePuller(tmp.resolve("cache"), Architecture.X86_64)
                        .pull(source("bad"), image.digest(), progress::add))
                .isInstanceOf(PullDeniedException.class)
                .hasMessageContaining("401");
    }

    @Test
    void aTamperedLayerIsRefusedAndNotCached() throws Exception {
        Path layer = image.layout()
                .resolve("blobs/sha256")
                .resolve(image.layerDigests().getFirst().substring(7));
        byte[] bytes = Files.readAllBytes(layer);
        bytes[bytes.length - 1] ^= 1;
        Files.write(layer, bytes);
        Path cache = tmp.resolve("cache");
        assertThatThrownBy(() -> new ImagePuller(cache, Architecture.X86_64)
                        .pull(source("good-token"), image.digest(), progress::add))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("digest mismatch");
        assertThat(cache.resolve(image.layerDigests().getFirst().substring(7))).doesNotExist();
        try (var files = Files.list(cache)) {
            assertThat(files.filter(p -> p.toString().endsWith(".tmp"))).isEmpty();
        }
    }

    @Test
    void aManifestThatDoesNotMatchItsDigestIsRefused() throws Exception {
        ImageDigest other = ImageDigest.of("sha256:" + "0".repeat(64));
        Path blobs = image.layout().resolve("blobs/sha256");
        Files.copy(blobs.resolve(image.digest().hex()), blobs.resolve(other.hex()));
        assertThatThrownBy(() -> new ImagePuller(tmp.resolve("cache"), Architecture.X86_64)
                        .pull(source("good-token"), other, progress::add))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("manifest digest mismatch");
    }

    @Test
    void anImageForAnotherArchitectureIsRefused() {
        assertThatThrownBy(() -> new ImagePuller(tmp.resolve("cache"), Architecture.AARCH64)
                        .pull(source("good-token"), image.digest(), progress::add))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("architecture amd64");
    }
}
