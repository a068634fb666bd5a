package dev.baton.web.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminTokenTest {
    @TempDir
    Path dir;

    @Test
    void generatedOnceIntoAPrivateFileAndReusedAfterwards() throws Exception {
        AdminToken first = AdminToken.resolve(null, dir);
        Path file = dir.resolve("admin-token");
        assertThat(first.file()).isEqualTo(file);
        String token = Files.readString(file).strip();
        assertThat(token).matches("baton_admin_[0-9a-f]{64}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(first.matches(token)).isTrue();
        assertThat(first.toString()).doesNotContain(token);

        AdminToken second = AdminToken.resolve(null, dir);
        assertThat(second.matches(token)).isTrue();
        assertThat(Files.readString(file).strip()).isEqualTo(token);
    }

    @Test
    void aConfiguredTokenIsUsedAndNothingIsWritten() {
        AdminToken t = AdminToken.resolve("configured-token-123", dir);
        assertThat(t.file()).isNull();
        assertThat(t.matches("configured-token-123")).isTrue();
        assertThat(t.matches("configured-token-12")).isFalse();
        assertThat(t.matches("")).isFalse();
        assertThat(t.matches(null)).isFalse();
        assertThat(dir.resolve("admin-token")).doesNotExist();
    }

    @Test
    void bearerParsing() {
        assertThat(BearerToken.of("Bearer abc")).contains("abc");
        assertThat(BearerToken.of("bearer  abc ")).contains("abc");
        assertThat(BearerToken.of("Basic abc")).isEmpty();
        assertThat(BearerToken.of("Bearer ")).isEmpty();
        assertThat(BearerToken.of(null)).isEmpty();
    }
}
