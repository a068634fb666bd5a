package dev.baton.protocol.value;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A runner's secret: {@code baton_runner_} and 64 lowercase hex digits (77 characters). Shown
 * once at creation or rotation; only its SHA-256 is stored. {@link #toString()} never prints it.
 */
public final class RunnerKey {
    public static final String PREFIX = "baton_runner_";
    public static final int LENGTH = PREFIX.length() + 64;
    private static final Pattern SHAPE = Pattern.compile(Pattern.quote(PREFIX) + "[0-9a-f]{64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String secret;

    private RunnerKey(String secret) {
        this.secret = secret;
    }

    public static RunnerKey generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return new RunnerKey(PREFIX + HexFormat.of().formatHex(bytes));
    }

    /** Checks prefix, length and alphabet before anything is hashed or looked up. */
    public static RunnerKey parse(String text) {
        if (text == null || text.length() != LENGTH || !SHAPE.matcher(text).matches()) {
            throw new IllegalArgumentException(
                    "runner key must be '" + PREFIX + "' followed by 64 lowercase hex digits");
        }
        return new RunnerKey(text);
    }

    /** The secret itself, for the one response that reveals it and for the runner's header. */
    public String reveal() {
        return secret;
    }

    /** SHA-256 of the key in lowercase hex: what the store keeps and looks up. */
    public String hash() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        }
    }

    @Override
    public String toString() {
        return "RunnerKey[redacted]";
    }
}
