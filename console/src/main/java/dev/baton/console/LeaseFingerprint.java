package dev.baton.console;

import dev.baton.protocol.id.LeaseId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What the console shows of an attempt's lease: the first {@link #BYTES} bytes of SHA-256 over a
 * label and the lease's value. A lease is 32 random bytes, so its fingerprint tells attempts apart
 * (a clash needs about 2^24 attempts) yet gives nothing to act with; the label keeps it from
 * equalling any other hash of the lease. It must hash {@link LeaseId#value()}: the lease's
 * {@code toString()} is the same redacted text for every lease.
 */
final class LeaseFingerprint {
    static final int BYTES = 6;
    private static final byte[] LABEL = "baton console lease fingerprint v1\n".getBytes(StandardCharsets.US_ASCII);

    private LeaseFingerprint() {}

    /** Twelve hex digits, or "—" for an attempt without a lease. */
    static String of(LeaseId lease) {
        if (lease == null) return "—";
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(LABEL);
            byte[] digest = sha.digest(lease.value().getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(digest, 0, BYTES);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }
}
