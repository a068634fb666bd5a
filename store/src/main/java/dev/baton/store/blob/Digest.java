package dev.baton.store.blob;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A content digest {@code algorithm:hex} as the OCI image spec defines it. Only sha256 and
 * sha512 are accepted (the registered algorithms); the hex part is validated to its exact length,
 * so a digest is always safe to use as a file name.
 */
public record Digest(String algorithm, String hex) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern SHA512 = Pattern.compile("[0-9a-f]{128}");

    public Digest {
        boolean valid = switch (algorithm == null ? "" : algorithm) {
            case "sha256" -> hex != null && SHA256.matcher(hex).matches();
            case "sha512" -> hex != null && SHA512.matcher(hex).matches();
            default -> false;
        };
        if (!valid) throw new IllegalArgumentException("digest must be sha256:<64 hex> or sha512:<128 hex>");
    }

    /** Parses {@code sha256:…}; empty when the text is not a supported, well-formed digest. */
    public static Optional<Digest> parse(String text) {
        if (text == null) return Optional.empty();
        int colon = text.indexOf(':');
        if (colon < 0) return Optional.empty();
        try {
            return Optional.of(new Digest(text.substring(0, colon), text.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    public static Digest sha256(byte[] content) {
        return new Digest("sha256", HexFormat.of().formatHex(newHasher("sha256").digest(content)));
    }

    /** A fresh hasher for this digest's algorithm, to verify content against it. */
    public MessageDigest hasher() {
        return newHasher(algorithm);
    }

    public static MessageDigest newHasher(String algorithm) {
        try {
            return MessageDigest.getInstance(
                    switch (algorithm) {
                        case "sha256" -> "SHA-256";
                        case "sha512" -> "SHA-512";
                        default -> throw new IllegalArgumentException("unsupported digest algorithm " + algorithm);
                    });
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + algorithm, e);
        }
    }

    /** The digest of what {@code hasher} has seen, named with {@code algorithm}. */
    public static Digest of(String algorithm, MessageDigest hasher) {
        return new Digest(algorithm, HexFormat.of().formatHex(hasher.digest()));
    }

    @Override
    public String toString() {
        return algorithm + ":" + hex;
    }
}
