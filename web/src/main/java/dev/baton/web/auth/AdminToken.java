package dev.baton.web.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The management secret. Either configured, or generated once into {@code {data_dir}/admin-token}
 * (mode 0600) and read back on later starts. {@link #toString()} never prints it.
 */
public final class AdminToken {
    public static final String PREFIX = "baton_admin_";
    public static final String FILE_NAME = "admin-token";

    private final byte[] digest;
    private final Path file;

    private AdminToken(String token, Path file) {
        this.digest = sha256(token);
        this.file = file;
    }

    /** A configured token; it is not written anywhere. */
    public static AdminToken of(String token) {
        if (token == null || token.isBlank()) throw new IllegalArgumentException("admin_token must not be empty");
        return new AdminToken(token.strip(), null);
    }

    /** The configured token, or the one in {@code dataDir/admin-token}, generated on first start. */
    public static AdminToken resolve(String configured, Path dataDir) {
        if (configured != null) return of(configured);
        Path file = dataDir.resolve(FILE_NAME);
        try {
            Files.createDirectories(dataDir);
            if (!Files.exists(file)) {
                try {
                    Files.createFile(
                            file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                    Files.writeString(file, generate() + "\n", StandardCharsets.US_ASCII);
                } catch (FileAlreadyExistsException raced) {
                    // another process created it first; use theirs
                } catch (UnsupportedOperationException noPosix) {
                    Files.writeString(file, generate() + "\n", StandardCharsets.US_ASCII);
                }
            }
            String token = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (token.isEmpty())
                throw new IllegalStateException(file + " is empty; delete it to generate a new admin token");
            return new AdminToken(token, file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the admin token file " + file, e);
        }
    }

    static String generate() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return PREFIX + HexFormat.of().formatHex(bytes);
    }

    /** Constant-time: both sides are hashed first, so neither content nor length leaks by timing. */
    public boolean matches(String candidate) {
        if (candidate == null) return false;
        return MessageDigest.isEqual(digest, sha256(candidate));
    }

    /** Where the generated token lives, or null when it was configured. */
    public Path file() {
        return file;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        }
    }

    @Override
    public String toString() {
        return "AdminToken[redacted]";
    }
}
