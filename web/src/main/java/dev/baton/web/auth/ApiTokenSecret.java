package dev.baton.web.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A user's API token secret: {@code baton_token_} and 64 lowercase hex digits, recognisable in a
 * leaked log or repository the way runner keys are. Shown once at creation; only its SHA-256 is
 * stored. {@link #toString()} never prints it.
 */
public final class ApiTokenSecret {
    public static final String PREFIX = "baton_token_";
    public static final int LENGTH = PREFIX.length() + 64;
    private static final Pattern SHAPE = Pattern.compile(Pattern.quote(PREFIX) + "[0-9a-f]{64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String secret;

    private ApiTokenSecret(String secret) {
        this.secret = secret;
    }

    public static ApiTokenSecret generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return new ApiTokenSecret(PREFIX + HexFormat.of().formatHex(bytes));
    }

    /** Checks prefix, length and alphabet before anything is hashed or looked up. */
    public static ApiTokenSecret parse(String text) {
        if (text == null || text.length() != LENGTH || !SHAPE.matcher(text).matches()) {
            throw new IllegalArgumentException(
                    "API token must be '" + PREFIX + "' followed by 64 lowercase hex digits");
        }
        return new ApiTokenSecret(text);
    }

    public static boolean looksLikeOne(String text) {
        return text != null && text.startsWith(PREFIX);
    }

    /** The secret itself, for the one response that reveals it. */
    public String reveal() {
        return secret;
    }

    /** SHA-256 of the secret in lowercase hex: what the store keeps and looks up. */
    public String hash() {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        }
    }

    @Override
    public String toString() {
        return "ApiTokenSecret[redacted]";
    }
}
