package dev.baton.store.token;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.value.ImageDigest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegistryTokensTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @TempDir
    Path dataDir;

    static final ImageDigest IMAGE = ImageDigest.of("sha256:" + "a".repeat(64));

    /** A job's pull for {@code project}, its hard timeout an hour away. */
    static JobPull pull(RunnerUuid runner, ProjectUuid project) {
        return new JobPull(runner, project, new PullScope(JobUuid.random(), 2, IMAGE), NOW.plus(Duration.ofHours(1)));
    }

    @Test
    void pullTokensArePullOnlyForOneJobsImageInItsProjectAndExpire() throws Exception {
        RegistryTokens tokens = RegistryTokens.open(dataDir, Duration.ofMinutes(5));
        RunnerUuid runner = RunnerUuid.random();
        ProjectUuid project = ProjectUuid.random();
        JobPull pull = pull(runner, project);
        String token = tokens.issue(pull, NOW);

        Grant grant = tokens.verify(token, NOW.plusSeconds(60)).orElseThrow();
        assertThat(grant.subject()).isEqualTo(runner.toString());
        assertThat(grant.admin()).isFalse();
        assertThat(grant.pull()).isEqualTo(pull.scope());
        assertThat(grant.allows(project.toString(), "", "x", "pull")).isTrue();
        assertThat(grant.allows(project.toString(), "img", "x/img", "pull"))
                .as("the project's root only")
                .isFalse();
        assertThat(grant.allows(project.toString(), "", "x", "push")).isFalse();
        assertThat(grant.allows(ProjectUuid.random().toString(), "", "y", "pull"))
                .isFalse();

        SignedJWT jwt = SignedJWT.parse(token);
        assertThat(jwt.getJWTClaimsSet().getAudience()).containsExactly(RegistryTokens.AUDIENCE);
        assertThat(jwt.getJWTClaimsSet().getExpirationTime().toInstant()).isEqualTo(NOW.plus(Duration.ofMinutes(5)));

        assertThat(tokens.verify(token, NOW.plus(Duration.ofMinutes(5)))).isEmpty();
        assertThat(tokens.verify(token, NOW.minusSeconds(1)))
                .as("not before issue")
                .isEmpty();
    }

    @Test
    void aPairedJobsPullTokenNamesItsBaselineImageToo() throws Exception {
        // Issue 45: the runner pulls the baseline's own image under the job's one token.
        RegistryTokens tokens = RegistryTokens.open(dataDir, Duration.ofMinutes(5));
        ImageDigest baseline = ImageDigest.of("sha256:" + "b".repeat(64));
        PullScope scope = new PullScope(JobUuid.random(), 1, IMAGE, baseline);
        JobPull pull = new JobPull(RunnerUuid.random(), ProjectUuid.random(), scope, NOW.plus(Duration.ofHours(1)));

        Grant grant = tokens.verify(tokens.issue(pull, NOW), NOW).orElseThrow();
        assertThat(grant.pull()).isEqualTo(scope);
        assertThat(grant.pull().images()).containsExactly(IMAGE, baseline);
        Grant single = tokens.verify(tokens.issue(pull(RunnerUuid.random(), ProjectUuid.random()), NOW), NOW)
                .orElseThrow();
        assertThat(single.pull().baseline()).isNull();
        assertThat(single.pull().images()).containsExactly(IMAGE);
    }

    @Test
    void aPullTokenNeverOutlivesItsJobsHardTimeout() throws Exception {
        RegistryTokens tokens = RegistryTokens.open(dataDir, Duration.ofMinutes(10));
        JobPull soon = new JobPull(
                RunnerUuid.random(),
                ProjectUuid.random(),
                new PullScope(JobUuid.random(), 1, IMAGE),
                NOW.plus(Duration.ofMinutes(3)));
        String token = tokens.issue(soon, NOW);
        assertThat(SignedJWT.parse(token).getJWTClaimsSet().getExpirationTime().toInstant())
                .isEqualTo(NOW.plus(Duration.ofMinutes(3)));
        assertThat(tokens.verify(token, NOW.plus(Duration.ofMinutes(3)))).isEmpty();
    }

    @Test
    void nodeTokensAreForOneJobWithinAMinuteEitherSideAndNeverRegistryTokens(@TempDir Path otherDir) {
        RegistryTokens tokens = RegistryTokens.open(dataDir, Duration.ofMinutes(5));
        dev.baton.protocol.id.JobUuid job = dev.baton.protocol.id.JobUuid.random();
        String token = tokens.issue("node-b", job, NOW);

        assertThat(tokens.verify(token, job, NOW)).isTrue();
        assertThat(tokens.verify(token, job, NOW.minus(RegistryTokens.NODE_TOKEN_SLACK)))
                .as("a clock a minute behind")
                .isTrue();
        assertThat(tokens.verify(
                        token, job, NOW.plus(RegistryTokens.NODE_TOKEN_SLACK).minusMillis(1)))
                .isTrue();
        assertThat(tokens.verify(token, job, NOW.plus(RegistryTokens.NODE_TOKEN_SLACK)))
                .as("expired")
                .isFalse();
        assertThat(tokens.verify(
                        token, job, NOW.minus(RegistryTokens.NODE_TOKEN_SLACK).minusSeconds(1)))
                .as("not yet valid")
                .isFalse();
        assertThat(tokens.verify(token, dev.baton.protocol.id.JobUuid.random(), NOW))
                .as("another job")
                .isFalse();
        assertThat(tokens.verify(token, NOW)).as("no registry token").isEmpty();
        assertThat(tokens.verify(tokens.issue(pull(RunnerUuid.random(), ProjectUuid.random()), NOW), job, NOW))
                .as("a pull token is no node token")
                .isFalse();
        assertThat(RegistryTokens.open(otherDir, Duration.ofMinutes(5)).verify(token, job, NOW))
                .as("another cluster's key")
                .isFalse();
        assertThat(tokens.verify("not a token", job, NOW)).isFalse();
    }

    @Test
    void bothKindsRefuseATokenOfOursNamingBothAudiencesOrLackingANotBeforeTime() throws Exception {
        RegistryTokens tokens = RegistryTokens.open(dataDir, Duration.ofMinutes(5));
        dev.baton.protocol.id.JobUuid job = dev.baton.protocol.id.JobUuid.random();
        ECDSASigner ourKey = new ECDSASigner(
                com.nimbusds.jose.jwk.ECKey.parse(Files.readString(dataDir.resolve(RegistryTokens.KEY_FILE))));
        List<Map<String, Object>> pullAll =
                List.of(Map.of("type", "project", "name", ProjectUuid.random().toString(), "actions", List.of("pull")));

        // Signed with the cluster's key, but not as this class signs: one registry check and one node check used to
        // differ here.
        String bothAudiences = signed(
                ourKey,
                claims(pullAll, job)
                        .audience(List.of(RegistryTokens.AUDIENCE, RegistryTokens.NODE_AUDIENCE))
                        .notBeforeTime(Date.from(NOW))
                        .build());
        assertThat(tokens.verify(bothAudiences, NOW))
                .as("registry: a token for two audiences")
                .isEmpty();
        assertThat(tokens.verify(bothAudiences, job, NOW))
                .as("node: a token for two audiences")
                .isFalse();

        String registryWithoutNbf = signed(
                ourKey, claims(pullAll, job).audience(RegistryTokens.AUDIENCE).build());
        String nodeWithoutNbf = signed(
                ourKey,
                claims(pullAll, job).audience(RegistryTokens.NODE_AUDIENCE).build());
        assertThat(tokens.verify(registryWithoutNbf, NOW))
                .as("registry: no not-before time")
                .isEmpty();
        assertThat(tokens.verify(nodeWithoutNbf, job, NOW))
                .as("node: no not-before time")
                .isFalse();

        // The same claims with a not-before time pass, and a not-before time in the future fails, for both.
        assertThat(tokens.verify(
                        signed(
                                ourKey,
                                claims(pullAll, job)
                                        .audience(RegistryTokens.AUDIENCE)
                                        .notBeforeTime(Date.from(NOW))
                                        .build()),
                        NOW))
                .isPresent();
        assertThat(tokens.verify(
                        signed(
                                ourKey,
                                claims(pullAll, job)
                                        .audience(RegistryTokens.NODE_AUDIENCE)
                                        .notBeforeTime(Date.from(NOW))
                                        .build()),
                        job,
                        NOW))
                .isTrue();
        assertThat(tokens.verify(
                        signed(
                                ourKey,
                                claims(pullAll, job)
                                        .audience(RegistryTokens.AUDIENCE)
                                        .notBeforeTime(Date.from(NOW.plusSeconds(1)))
                                        .build()),
                        NOW))
                .isEmpty();
        assertThat(tokens.verify(
                        signed(
                                ourKey,
                                claims(pullAll, job)
                                        .audience(RegistryTokens.NODE_AUDIENCE)
                                        .notBeforeTime(Date.from(NOW.plusSeconds(1)))
                                        .build()),
                        job,
                        NOW))
                .isFalse();
    }

    private static JWTClaimsSet.Builder claims(Object access, dev.baton.protocol.id.JobUuid job) {
        return new JWTClaimsSet.Builder()
                .issuer(RegistryTokens.ISSUER)
                .subject("node:node-b")
                .issueTime(Date.from(NOW))
                .expirationTime(Date.from(NOW.plusSeconds(60)))
                .claim("access", access)
                .claim("job", job.toString());
    }

    private static String signed(ECDSASigner key, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.ES256), claims);
        jwt.sign(key);
        return jwt.serialize();
    }

    @Test
    void theKeyIsPersistedPrivatelyAndSurvivesARestart() throws Exception {
        String token = RegistryTokens.open(dataDir, Duration.ofMinutes(5))
                .issue(pull(RunnerUuid.random(), ProjectUuid.random()), NOW);
        Path key = dataDir.resolve(RegistryTokens.KEY_FILE);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
                .isEqualTo("rw-------");
        assertThat(RegistryTokens.open(dataDir, Duration.ofMinutes(5)).verify(token, NOW))
                .isPresent();

        // Another data directory means another key: its tokens are not accepted here.
        RegistryTokens other = RegistryTokens.open(dataDir.resolve("other"), Duration.ofMinutes(5));
        assertThat(other.verify(token, NOW)).isEmpty();
    }

    @Test
    void forgedTamperedAndForeignTokensAreRefused() throws Exception {
        RegistryTokens tokens = RegistryTokens.open(dataDir, Duration.ofMinutes(5));
        ProjectUuid project = ProjectUuid.random();
        String token = tokens.issue(pull(RunnerUuid.random(), project), NOW);

        String[] parts = token.split("\\.");
        String otherPayload = SignedJWT.parse(
                        tokens.issueUserToken(List.of(new Access(Access.PROJECT, project.toString(), Set.of("*"))), NOW)
                                .token())
                .getParsedParts()[1]
                .toString();
        assertThat(tokens.verify(parts[0] + "." + otherPayload + "." + parts[2], NOW))
                .as("payload swapped")
                .isEmpty();
        assertThat(tokens.verify("not-a-jwt", NOW)).isEmpty();

        // Signed with a key of its own: same claims, not ours.
        SignedJWT forged = new SignedJWT(
                new JWSHeader(JWSAlgorithm.ES256),
                new JWTClaimsSet.Builder()
                        .issuer(RegistryTokens.ISSUER)
                        .audience(RegistryTokens.AUDIENCE)
                        .subject("admin")
                        .expirationTime(Date.from(NOW.plusSeconds(60)))
                        .claim(
                                "access",
                                List.of(Map.of("type", "project", "name", project.toString(), "actions", List.of("*"))))
                        .build());
        forged.sign(new ECDSASigner(new ECKeyGenerator(Curve.P_256).generate()));
        assertThat(tokens.verify(forged.serialize(), NOW)).isEmpty();
    }

    @Test
    void userTokensCarryTheRequestedRepositoryScopes() throws Exception {
        RegistryTokens tokens = RegistryTokens.open(dataDir, Duration.ofMinutes(5));
        String project = ProjectUuid.random().toString();
        IssuedToken issued = tokens.issueUserToken(
                List.of(new Access(Access.REPOSITORY, project + "/img", Set.of("pull", "push"))), NOW);
        assertThat(issued.expiresIn()).isEqualTo(RegistryTokens.USER_TOKEN_TTL);
        Grant grant = tokens.verify(issued.token(), NOW).orElseThrow();
        assertThat(grant.allows(project, "img", "p/img", "push")).isTrue();
        assertThat(grant.allows(project, "img", "p/img", "delete")).isFalse();
        assertThat(grant.allows(project, "other", "p/other", "pull")).isFalse();
        assertThat(tokens.verify(issued.token(), NOW.plus(RegistryTokens.USER_TOKEN_TTL)))
                .isEmpty();
    }
}
