package dev.baton.store.token;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReusedNodeTokensTest {
    private static final Instant NOW = Instant.parse("2026-11-24T15:00:00Z");

    @TempDir
    Path dataDir;

    @Test
    void aJobsTokenIsPresentedAgainForHalfAMinuteAndIsValidWheneverItIs() {
        RegistryTokens signer = RegistryTokens.open(dataDir, Duration.ofMinutes(5));
        ReusedNodeTokens tokens = new ReusedNodeTokens(signer);
        JobUuid job = JobUuid.random();

        String first = tokens.issue("node-b", job, NOW);
        Instant lastReuse = NOW.plus(ReusedNodeTokens.REUSE_FOR).minusMillis(1);
        assertThat(tokens.issue("node-b", job, lastReuse)).isEqualTo(first);
        // At its last use it is still valid for the slack less the reuse, and has been for the whole slack.
        Duration left = RegistryTokens.NODE_TOKEN_SLACK.minus(ReusedNodeTokens.REUSE_FOR);
        assertThat(signer.verify(first, job, lastReuse.plus(left).minusMillis(1)))
                .as("another node's clock up to 30 s ahead")
                .isTrue();
        assertThat(signer.verify(first, job, NOW.minus(RegistryTokens.NODE_TOKEN_SLACK)))
                .as("or a minute behind")
                .isTrue();
        assertThat(tokens.verify(first, job, NOW)).isTrue();

        String renewed = tokens.issue("node-b", job, NOW.plus(ReusedNodeTokens.REUSE_FOR));
        assertThat(renewed).isNotEqualTo(first);
        assertThat(signer.verify(renewed, job, NOW.plus(ReusedNodeTokens.REUSE_FOR)))
                .isTrue();
    }

    @Test
    void tokensAreNeverSharedAcrossJobsAndAClockThatWentBackGetsAFreshOne() {
        RegistryTokens signer = RegistryTokens.open(dataDir, Duration.ofMinutes(5));
        ReusedNodeTokens tokens = new ReusedNodeTokens(signer);
        JobUuid job = JobUuid.random();
        String token = tokens.issue("node-b", job, NOW);

        JobUuid other = JobUuid.random();
        String forOther = tokens.issue("node-b", other, NOW);
        assertThat(forOther).isNotEqualTo(token);
        assertThat(signer.verify(forOther, job, NOW)).isFalse();
        assertThat(tokens.issue("node-b", job, NOW.minusSeconds(1))).isNotEqualTo(token);
    }
}
