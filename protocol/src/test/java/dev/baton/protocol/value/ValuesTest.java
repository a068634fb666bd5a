package dev.baton.protocol.value;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.message.Wire;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Every validated value at and just beyond its named bounds. */
class ValuesTest {
    @Test
    void pollTimeoutIsOneToNineHundredSeconds() {
        assertThat(new PollTimeout(PollTimeout.MIN).seconds()).isEqualTo(1);
        assertThat(new PollTimeout(PollTimeout.MAX).seconds()).isEqualTo(900);
        assertThatThrownBy(() -> new PollTimeout(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("poll_timeout must be between 1 and 900, got 0");
        assertThatThrownBy(() -> new PollTimeout(901))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("901");
    }

    @Test
    void jobTimeoutIsOneSecondToSevenDays() {
        assertThat(JobTimeout.DEFAULT.seconds()).isEqualTo(3600);
        assertThat(new JobTimeout(JobTimeout.MIN).seconds()).isEqualTo(1);
        assertThat(new JobTimeout(JobTimeout.MAX).seconds()).isEqualTo(604_800);
        assertThatThrownBy(() -> new JobTimeout(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JobTimeout(JobTimeout.MAX + 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cpuMemoryAndDiskArePositive() {
        assertThat(new Cpu(Cpu.MAX).count()).isEqualTo(Integer.MAX_VALUE);
        assertThat(new Memory(Memory.MAX).bytes()).isEqualTo(Long.MAX_VALUE);
        assertThat(new Disk(1).bytes()).isEqualTo(1);
        assertThatThrownBy(() -> new Cpu(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cpu");
        assertThatThrownBy(() -> new Cpu(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Memory(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memory");
        assertThatThrownBy(() -> new Disk(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("disk");
    }

    @Test
    void valuesAreBareJsonNumbers() throws Exception {
        assertThat(Wire.mapper().writeValueAsString(new PollTimeout(30))).isEqualTo("30");
        assertThat(Wire.mapper().readValue("30", PollTimeout.class)).isEqualTo(new PollTimeout(30));
        assertThatThrownBy(() -> Wire.mapper().readValue("0", PollTimeout.class))
                .hasRootCauseInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void slugRules() {
        for (String ok : new String[] {"a", "runner-1", "x86-64-box", "a".repeat(64), "0"}) {
            assertThat(new Slug(ok).value()).isEqualTo(ok);
        }
        for (String bad : new String[] {
            "",
            "-",
            "--",
            "Runner",
            "-a",
            "a-",
            "a--b",
            "a-b-",
            "A1",
            "a.b",
            "a_b",
            "a b",
            "ä",
            "a".repeat(65),
            "123e4567-e89b-12d3-a456-426614174000"
        }) {
            assertThatThrownBy(() -> new Slug(bad)).as("'%s'", bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> new Slug(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void slugsFromNamesAndSuffixes() {
        assertThat(Slug.fromName("My Runner #1").value()).isEqualTo("my-runner-1");
        assertThat(Slug.fromName("Café Box").value()).isEqualTo("cafe-box");
        assertThat(Slug.fromName("!!!").value()).startsWith("r-");
        assertThat(Slug.fromName("x".repeat(300)).value().length()).isLessThanOrEqualTo(Slug.MAX_LENGTH);
        assertThat(new Slug("box").withSuffix("2").value()).isEqualTo("box-2");
        assertThat(new Slug("a".repeat(64)).withSuffix("abc").value())
                .hasSize(64)
                .endsWith("-abc");
    }

    @Test
    void resourceNames() {
        assertThat(new ResourceName("Bench box").value()).isEqualTo("Bench box");
        assertThat(new ResourceName("n".repeat(ResourceName.MAX_LENGTH)).value())
                .hasSize(256);
        assertThatThrownBy(() -> new ResourceName("n".repeat(ResourceName.MAX_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ResourceName("  ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ResourceName("a\nb")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void runnerKeyShapeHashAndRedaction() throws Exception {
        RunnerKey key = RunnerKey.generate();
        assertThat(key.reveal())
                .hasSize(RunnerKey.LENGTH)
                .hasSize(77)
                .startsWith("baton_runner_")
                .matches("baton_runner_[0-9a-f]{64}");
        assertThat(RunnerKey.parse(key.reveal()).hash()).isEqualTo(key.hash());
        String expectedHash = HexFormat.of()
                .formatHex(
                        MessageDigest.getInstance("SHA-256").digest(key.reveal().getBytes(StandardCharsets.US_ASCII)));
        assertThat(key.hash()).isEqualTo(expectedHash).hasSize(64);
        assertThat(key.toString()).doesNotContain(key.reveal().substring(13));
        assertThat(RunnerKey.generate().reveal()).isNotEqualTo(key.reveal());

        String hex = "0123456789abcdef".repeat(4);
        assertThat(RunnerKey.parse("baton_runner_" + hex).reveal()).endsWith(hex);
        for (String bad : new String[] {
            null,
            "",
            "baton_runner_" + hex.substring(1),
            "baton_runner_" + hex + "0",
            "baton_runner_" + hex.toUpperCase(),
            "bencher_runner_" + hex,
            "baton_runner_" + hex.replace('a', 'g')
        }) {
            assertThatThrownBy(() -> RunnerKey.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(hex));
        }
    }

    @Test
    void imageDigests() {
        String hex = "ab".repeat(32);
        ImageDigest d = new ImageDigest("sha256:" + hex);
        assertThat(d.hex()).isEqualTo(hex);
        assertThat(d.toString()).isEqualTo("sha256:" + hex);
        for (String bad : new String[] {
            null,
            hex,
            "sha256:" + hex.substring(2),
            "sha256:" + hex.toUpperCase(),
            "sha512:" + hex,
            "sha256:" + hex + "ab",
            "latest"
        }) {
            assertThatThrownBy(() -> new ImageDigest(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void architectures() {
        assertThat(Architecture.parse("x86_64")).isEqualTo(Architecture.X86_64);
        assertThat(Architecture.parse("aarch64")).isEqualTo(Architecture.AARCH64);
        assertThatThrownBy(() -> Architecture.parse("amd64"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("x86_64");
    }
}
