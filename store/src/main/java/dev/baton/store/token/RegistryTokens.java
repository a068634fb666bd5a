package dev.baton.store.token;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.value.ImageDigest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Registry tokens: ES256 JWTs signed with a key generated on first start and kept in the data
 * directory (so tokens survive a restart; every server node sharing the data directory, or the
 * key file, accepts the others' tokens). Two kinds are issued:
 *
 * <ul>
 *   <li>runner pull tokens ({@link PullTokens}): subject the runner UUID, pull on the job's
 *       project repository, claims {@code pull_job}, {@code pull_attempt} and {@code pull_image}
 *       limiting it to one attempt's image (issue 41), valid for the configured minutes at most;
 *   <li>user tokens from {@code /v2/token}: subject {@code admin}, the requested repository
 *       scopes, valid for {@link #USER_TOKEN_TTL}.
 * </ul>
 *
 * Every token has issuer {@link #ISSUER}, audience {@link #AUDIENCE} (node tokens:
 * {@link #NODE_AUDIENCE}, {@link NodeTokens}) and both an expiry and a not-before time; a JWT for
 * another audience, or for more than one, is never accepted here.
 */
public final class RegistryTokens implements PullTokens, NodeTokens {
    public static final String ISSUER = "baton";
    public static final String AUDIENCE = "baton-registry";
    /** The audience of node-to-node tokens ({@link NodeTokens}): never accepted by {@link #verify}. */
    public static final String NODE_AUDIENCE = "baton-node";
    /** A node token's validity either side of its issue time: nodes' clocks may differ a little. */
    static final Duration NODE_TOKEN_SLACK = Duration.ofMinutes(1);

    private static final String JOB_CLAIM = "job";
    public static final Duration USER_TOKEN_TTL = Duration.ofMinutes(15);
    static final String KEY_FILE = "registry-signing-key.jwk";
    private static final String ACCESS_CLAIM = "access";
    /** A job's pull token (issue 41): names of their own, so that a node token's {@code job} never reads as one. */
    private static final String PULL_JOB_CLAIM = "pull_job";

    private static final String PULL_ATTEMPT_CLAIM = "pull_attempt";
    private static final String PULL_IMAGE_CLAIM = "pull_image";
    /** A paired job's baseline image (issue 45), which its token fetches too; absent otherwise. */
    private static final String PULL_BASELINE_CLAIM = "pull_baseline_image";

    private final ECKey key;
    private final JWSSigner signer;
    private final JWSVerifier verifier;
    private final Duration pullTokenTtl;

    private RegistryTokens(ECKey key, Duration pullTokenTtl) {
        try {
            this.key = key;
            this.signer = new ECDSASigner(key);
            this.verifier = new ECDSAVerifier(key.toPublicJWK());
        } catch (JOSEException e) {
            throw new IllegalStateException("unusable registry signing key", e);
        }
        this.pullTokenTtl = pullTokenTtl;
    }

    /** Loads the signing key from {@code dataDir}, generating and saving one (mode 600) when absent. */
    public static RegistryTokens open(Path dataDir, Duration pullTokenTtl) {
        try {
            return new RegistryTokens(loadOrCreate(dataDir), pullTokenTtl);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot load the registry signing key from " + dataDir, e);
        }
    }

    private static ECKey loadOrCreate(Path dataDir) throws IOException {
        Path file = dataDir.resolve(KEY_FILE);
        if (!Files.exists(file)) {
            Files.createDirectories(dataDir);
            ECKey generated;
            try {
                generated = new ECKeyGenerator(Curve.P_256)
                        .keyID(UUID.randomUUID().toString())
                        .generate();
            } catch (JOSEException e) {
                throw new IllegalStateException("cannot generate a registry signing key", e);
            }
            Path tmp = Files.createTempFile(dataDir, ".registry-key-", ".tmp");
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // Not a POSIX file system: the data directory's own permissions protect the key.
            }
            Files.writeString(tmp, generated.toJSONString(), StandardCharsets.UTF_8);
            try {
                // No REPLACE_EXISTING: when two processes race, the first key written wins and both read it.
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                Files.deleteIfExists(tmp);
                if (!Files.exists(file)) throw e;
            }
        }
        try {
            return ECKey.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (ParseException e) {
            throw new IOException("registry signing key " + file + " is not a valid EC JWK: " + e.getMessage(), e);
        }
    }

    @Override
    public String issue(JobPull pull, Instant now) {
        Duration ttl = pullTokenTtl;
        // Never past the job's hard timeout: a token outliving its job is refused anyway, but need not exist.
        if (pull.notAfter().isBefore(now.plus(ttl))) ttl = Duration.between(now, pull.notAfter());
        if (ttl.isNegative() || ttl.isZero()) ttl = Duration.ofSeconds(1);
        PullScope scope = pull.scope();
        List<Access> access =
                List.of(new Access(Access.REPOSITORY, pull.project().toString(), Set.of("pull")));
        JWTClaimsSet.Builder builder = claims(pull.runner().toString(), access, now, ttl)
                .claim(PULL_JOB_CLAIM, scope.job().toString())
                .claim(PULL_ATTEMPT_CLAIM, scope.attempt())
                .claim(PULL_IMAGE_CLAIM, scope.image().toString());
        if (scope.baseline() != null)
            builder.claim(PULL_BASELINE_CLAIM, scope.baseline().toString());
        JWTClaimsSet claims = builder.build();
        return signed(claims);
    }

    @Override
    public String issue(String fromNode, JobUuid job, Instant now) {
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .audience(NODE_AUDIENCE)
                .subject("node:" + fromNode)
                .issueTime(Date.from(now))
                .notBeforeTime(Date.from(now.minus(NODE_TOKEN_SLACK)))
                .expirationTime(Date.from(now.plus(NODE_TOKEN_SLACK)))
                .claim(JOB_CLAIM, job.toString())
                .build();
        return signed(claims);
    }

    @Override
    public boolean verify(String token, JobUuid job, Instant now) {
        return verified(token, NODE_AUDIENCE, now)
                .map(c -> job.toString().equals(c.getClaim(JOB_CLAIM)))
                .orElse(false);
    }

    /** A user token for the given access, valid for {@link #USER_TOKEN_TTL}. */
    public IssuedToken issueUserToken(List<Access> access, Instant now) {
        return issueUserToken("admin", access, now);
    }

    /** A token for {@code subject} (who asked: {@code admin} or {@code user:<name>}) with the given access. */
    public IssuedToken issueUserToken(String subject, List<Access> access, Instant now) {
        return new IssuedToken(sign(subject, access, now, USER_TOKEN_TTL), now, USER_TOKEN_TTL);
    }

    /** The grant a token carries, or empty when it is malformed, forged, for another audience or expired. */
    public Optional<Grant> verify(String token, Instant now) {
        Optional<JWTClaimsSet> verified = verified(token, AUDIENCE, now);
        if (verified.isEmpty()) return Optional.empty();
        JWTClaimsSet claims = verified.get();
        try {
            List<Access> access = new ArrayList<>();
            Object raw = claims.getClaim(ACCESS_CLAIM);
            if (!(raw instanceof List<?> entries)) return Optional.empty();
            for (Object entry : entries) access.add(Access.fromClaim(entry));
            Instant expires = claims.getExpirationTime().toInstant();
            return Optional.of(new Grant(claims.getSubject(), access, false, expires, pullScope(claims)));
        } catch (IllegalArgumentException | ClassCastException | ParseException e) {
            return Optional.empty();
        }
    }

    /**
     * The claims of a token this key signed (ES256) for exactly {@code audience}, valid at
     * {@code now}; the one check both kinds of token pass. Every token this class signs names one
     * audience and has an expiry and a not-before time, so a token naming several audiences, or
     * lacking either time, was not made here and is refused whichever audience is asked.
     */
    private Optional<JWTClaimsSet> verified(String token, String audience, Instant now) {
        try {
            SignedJWT jwt = SignedJWT.parse(token);
            if (!JWSAlgorithm.ES256.equals(jwt.getHeader().getAlgorithm()) || !jwt.verify(verifier))
                return Optional.empty();
            JWTClaimsSet claims = jwt.getJWTClaimsSet();
            if (!ISSUER.equals(claims.getIssuer()) || !List.of(audience).equals(claims.getAudience()))
                return Optional.empty();
            Date exp = claims.getExpirationTime();
            Date nbf = claims.getNotBeforeTime();
            if (exp == null || !now.isBefore(exp.toInstant())) return Optional.empty();
            if (nbf == null || now.isBefore(nbf.toInstant())) return Optional.empty();
            return Optional.of(claims);
        } catch (ParseException | JOSEException | IllegalArgumentException | ClassCastException e) {
            return Optional.empty();
        }
    }

    /** The job a pull token is limited to, or null for a token of another kind. */
    private static PullScope pullScope(JWTClaimsSet claims) throws ParseException {
        String job = claims.getStringClaim(PULL_JOB_CLAIM);
        if (job == null) return null;
        Integer attempt = claims.getIntegerClaim(PULL_ATTEMPT_CLAIM);
        String image = claims.getStringClaim(PULL_IMAGE_CLAIM);
        if (attempt == null || image == null) {
            throw new IllegalArgumentException("a job's pull token names its attempt and image");
        }
        String baseline = claims.getStringClaim(PULL_BASELINE_CLAIM);
        return new PullScope(
                JobUuid.parse(job), attempt, ImageDigest.of(image), baseline == null ? null : ImageDigest.of(baseline));
    }

    private String sign(String subject, List<Access> access, Instant now, Duration ttl) {
        return signed(claims(subject, access, now, ttl).build());
    }

    private static JWTClaimsSet.Builder claims(String subject, List<Access> access, Instant now, Duration ttl) {
        return new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .audience(AUDIENCE)
                .subject(subject)
                .issueTime(Date.from(now))
                .notBeforeTime(Date.from(now))
                .expirationTime(Date.from(now.plus(ttl)))
                .jwtID(UUID.randomUUID().toString())
                .claim(ACCESS_CLAIM, access.stream().map(Access::toClaim).toList());
    }

    private String signed(JWTClaimsSet claims) {
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(key.getKeyID()).build(), claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign a registry token", e);
        }
        return jwt.serialize();
    }
}
