package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The fencing token of one attempt of a job (seed 003): unguessable, 32 random bytes in
 * base64url. It is a capability, so {@link #toString()} never prints it; only {@link #value()}
 * (used for the wire and the store) does.
 */
public record LeaseId(String value) {
    public static final int LENGTH = 43;
    private static final SecureRandom RANDOM = new SecureRandom();

    public LeaseId {
        if (value == null || value.length() != LENGTH || !isBase64Url(value)) {
            throw new IllegalArgumentException("lease must be " + LENGTH + " base64url characters");
        }
    }

    /** A loop, not a stream: every job-scoped runner message parses a lease. */
    private static boolean isBase64Url(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (!isBase64Url(value.charAt(i))) return false;
        }
        return true;
    }

    public static LeaseId random() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return new LeaseId(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }

    @JsonCreator
    public static LeaseId parse(String text) {
        return new LeaseId(text);
    }

    @JsonValue
    @Override
    public String value() {
        return value;
    }

    /** Constant-time comparison, so a wrong lease cannot be found byte by byte. */
    public boolean matches(LeaseId other) {
        return other != null && MessageDigest.isEqual(value.getBytes(), other.value.getBytes());
    }

    @Override
    public String toString() {
        return "LeaseId[redacted]";
    }

    private static boolean isBase64Url(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }
}
