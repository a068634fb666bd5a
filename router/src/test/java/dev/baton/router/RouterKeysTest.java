package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.value.RunnerKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The keys file: hashes only, re-read when it changes, malformed lines refused with their number. */
class RouterKeysTest {
    @TempDir
    Path dir;

    @Test
    void aKeyIsCheckedByItsHashAndARotationIsSeenWithoutARestart() throws Exception {
        Path file = dir.resolve("keys");
        RunnerKey first = RouterKeys.issue(file, "r1", List.of("small"));
        RouterKeys keys = new RouterKeys(file);
        assertThat(keys.authenticate("r1", "Bearer " + first.reveal()))
                .get()
                .satisfies(e -> assertThat(e.specs()).containsExactly("small"));
        assertThat(keys.authenticate("r2", "Bearer " + first.reveal())).isEmpty();
        assertThat(keys.authenticate("r1", first.reveal())).isEmpty();
        assertThat(keys.authenticate("r1", "Bearer baton_runner_short")).isEmpty();
        assertThat(keys.authenticate("r1", null)).isEmpty();

        RunnerKey second = RouterKeys.issue(file, "r1", List.of());
        assertThat(keys.authenticate("r1", "Bearer " + first.reveal())).isEmpty();
        assertThat(keys.authenticate("r1", "Bearer " + second.reveal())).isPresent();
        assertThat(Files.readString(file)).doesNotContain(second.reveal());
    }

    @Test
    void malformedLinesAreRefusedWithTheirNumber() {
        assertThatThrownBy(() -> RouterKeys.parse(List.of("# comment", "r1 nothex small")))
                .hasMessageContaining("line 2");
        assertThatThrownBy(
                        () -> RouterKeys.parse(List.of("r1 " + "a".repeat(64) + " s", "r1 " + "b".repeat(64) + " s")))
                .hasMessageContaining("listed twice");
        assertThat(RouterKeys.parse(List.of("", "r1 " + "a".repeat(64) + " s1,s2  # trailing comment")))
                .containsKey("r1");
    }
}
