package dev.baton.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.store.blob.Digest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registry against a real client: skopeo copies images in and out over HTTP. */
@Tag("container")
class RegistrySkopeoTest {
    @TempDir
    Path tmp;

    RegistryFixture registry;
    TestImage image;
    Path layout;

    @BeforeEach
    void setUp() throws Exception {
        SkopeoTool.require();
        registry = startRegistry(tmp.resolve("data"));
        image = new TestImage("skopeo");
        layout = tmp.resolve("layout");
        image.writeLayout(layout, "v1");
    }

    /** The registry under test; subclasses run the same tests on other blob storage. */
    RegistryFixture startRegistry(Path dataDir) throws Exception {
        return RegistryFixture.start(dataDir);
    }

    @AfterEach
    void tearDown() {
        if (registry != null) registry.close();
    }

    @Test
    void copiesAnOciLayoutInAndBackOutByDigestIdentically() throws Exception {
        String dest = "docker://" + registry.hostPort() + "/alpha/tools/img:v1";
        SkopeoTool.Result push = SkopeoTool.run(
                tmp,
                "copy",
                "--preserve-digests",
                "--dest-tls-verify=false",
                "--dest-creds",
                "baton:" + RegistryFixture.ADMIN,
                "oci:" + layout + ":v1",
                dest);
        assertThat(push.exit()).as(push.output()).isZero();

        // Out again by digest, as a runner does: the project's root repository by UUID, with its
        // pull token as bearer (no token flow).
        String source = "docker://" + registry.hostPort() + "/" + registry.alpha + "@" + image.digest();
        Path out = tmp.resolve("out");
        SkopeoTool.Result pull = SkopeoTool.run(
                tmp,
                "copy",
                "--preserve-digests",
                "--src-tls-verify=false",
                "--src-registry-token",
                registry.pullToken(registry.alpha),
                source,
                "oci:" + out + ":copy");
        assertThat(pull.exit()).as(pull.output()).isZero();

        // Identical: the same manifest digest, and every blob byte for byte.
        String index = Files.readString(out.resolve("index.json"));
        assertThat(index).contains(image.digest().toString());
        assertThat(Files.readAllBytes(
                        out.resolve("blobs/sha256").resolve(image.digest().hex())))
                .isEqualTo(image.manifest);
        for (byte[] blob : image.blobs()) {
            assertThat(Files.readAllBytes(out.resolve("blobs/sha256")
                            .resolve(Digest.sha256(blob).hex())))
                    .isEqualTo(blob);
        }

        // The project slug and its UUID name the same repository.
        SkopeoTool.Result byUuid = SkopeoTool.run(
                tmp,
                "inspect",
                "--raw",
                "--tls-verify=false",
                "--creds",
                "baton:" + RegistryFixture.ADMIN,
                "docker://" + registry.hostPort() + "/" + registry.alpha + "/tools/img:v1");
        assertThat(byUuid.exit()).as(byUuid.output()).isZero();
        assertThat(byUuid.output().strip()).isEqualTo(new String(image.manifest));
    }

    @Test
    void refusesUnauthenticatedAndWrongProjectAccess() throws Exception {
        SkopeoTool.Result push = SkopeoTool.run(
                tmp,
                "copy",
                "--preserve-digests",
                "--dest-tls-verify=false",
                "--dest-creds",
                "baton:" + RegistryFixture.ADMIN,
                "oci:" + layout + ":v1",
                "docker://" + registry.hostPort() + "/alpha/img:v1");
        assertThat(push.exit()).as(push.output()).isZero();
        String ref = "docker://" + registry.hostPort() + "/alpha/img:v1";

        SkopeoTool.Result anonymous = SkopeoTool.run(tmp, "inspect", "--raw", "--tls-verify=false", "--no-creds", ref);
        assertThat(anonymous.exit()).isNotZero();
        assertThat(anonymous.output()).doesNotContain(image.digest().hex()).containsIgnoringCase("unauthorized");

        SkopeoTool.Result wrongPassword = SkopeoTool.run(
                tmp, "inspect", "--raw", "--tls-verify=false", "--creds", "baton:not-the-admin-token", ref);
        assertThat(wrongPassword.exit()).isNotZero();
        assertThat(wrongPassword.output()).doesNotContain(image.digest().hex());

        // A runner token for project beta: nothing of alpha, neither as bearer nor through the token flow.
        String betaToken = registry.pullToken(registry.beta);
        SkopeoTool.Result bearer =
                SkopeoTool.run(tmp, "inspect", "--raw", "--tls-verify=false", "--registry-token", betaToken, ref);
        assertThat(bearer.exit()).isNotZero();
        assertThat(bearer.output()).doesNotContain(image.digest().hex());
        SkopeoTool.Result asPassword =
                SkopeoTool.run(tmp, "inspect", "--raw", "--tls-verify=false", "--creds", "runner:" + betaToken, ref);
        assertThat(asPassword.exit()).isNotZero();
        assertThat(asPassword.output()).doesNotContain(image.digest().hex());

        // The same kind of token for alpha works through the token flow too (password = the JWT).
        SkopeoTool.Result alphaToken = SkopeoTool.run(
                tmp,
                "inspect",
                "--raw",
                "--tls-verify=false",
                "--creds",
                "runner:" + registry.pullToken(registry.alpha),
                ref);
        assertThat(alphaToken.exit()).as(alphaToken.output()).isZero();
        assertThat(alphaToken.output().strip()).isEqualTo(new String(image.manifest));

        // A pull token cannot push.
        SkopeoTool.Result pushWithPullToken = SkopeoTool.run(
                tmp,
                "copy",
                "--preserve-digests",
                "--dest-tls-verify=false",
                "--dest-registry-token",
                registry.pullToken(registry.alpha),
                "oci:" + layout + ":v1",
                "docker://" + registry.hostPort() + "/alpha/other:v1");
        assertThat(pushWithPullToken.exit()).isNotZero();
    }
}
