package dev.baton.server.token;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.RunnerUuid;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReusedPullTokensTest {
    private static final Instant NOW = Instant.parse("2026-11-24T05:00:00Z");
    private static final Duration TTL = Duration.ofMinutes(10);

    @TempDir
    Path dataDir;

    @Test
    void aRunnerAndProjectGetTheSameSignedTokenForHalfItsLifetime() {
        RegistryTokens signer = RegistryTokens.open(dataDir, TTL);
        ReusedPullTokens tokens = new ReusedPullTokens(signer, TTL);
        RunnerUuid runner = RunnerUuid.random();
        ProjectUuid project = ProjectUuid.random();

        String first = tokens.issue(runner, project, NOW);
        assertThat(tokens.issue(runner, project, NOW.plus(TTL.dividedBy(2)).minusSeconds(1))).isEqualTo(first);
        // still valid whenever it is handed out: at least half the lifetime left
        assertThat(signer.verify(first, NOW.plus(TTL.dividedBy(2)).minusSeconds(1))).isPresent();

        String renewed = tokens.issue(runner, project, NOW.plus(TTL.dividedBy(2)));
        assertThat(renewed).isNotEqualTo(first);
        assertThat(signer.verify(renewed, NOW.plus(TTL).plusSeconds(60))).isPresent();
    }

    @Test
    void tokensAreNeverSharedAcrossRunnersOrProjects() {
        RegistryTokens signer = RegistryTokens.open(dataDir, TTL);
        ReusedPullTokens tokens = new ReusedPullTokens(signer, TTL);
        RunnerUuid runner = RunnerUuid.random();
        ProjectUuid project = ProjectUuid.random();
        String token = tokens.issue(runner, project, NOW);

        assertThat(tokens.issue(RunnerUuid.random(), project, NOW)).isNotEqualTo(token);
        assertThat(tokens.issue(runner, ProjectUuid.random(), NOW)).isNotEqualTo(token);
    }

    @Test
    void aClockThatWentBackGetsAFreshToken() {
        ReusedPullTokens tokens = new ReusedPullTokens(RegistryTokens.open(dataDir, TTL), TTL);
        RunnerUuid runner = RunnerUuid.random();
        ProjectUuid project = ProjectUuid.random();
        String token = tokens.issue(runner, project, NOW);

        assertThat(tokens.issue(runner, project, NOW.minusSeconds(1))).isNotEqualTo(token);
    }
}
