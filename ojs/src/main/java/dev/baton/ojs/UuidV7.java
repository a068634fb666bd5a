package dev.baton.ojs;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * UUIDv7 job ids (RFC 9562): 48 bits of Unix milliseconds from the injected clock, then random
 * bits. Within one millisecond the random part is not ordered; enqueue order is kept by the
 * store's sequence, not by the id.
 */
final class UuidV7 {
    /** The canonical lowercase form OJS requires of client-provided ids. */
    static final Pattern FORMAT =
            Pattern.compile("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");

    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    UuidV7(Clock clock) {
        this.clock = clock;
    }

    String next() {
        long millis = clock.millis();
        long randA = random.nextInt(1 << 12);
        long msb = (millis << 16) | 0x7000L | randA;
        long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }
}
