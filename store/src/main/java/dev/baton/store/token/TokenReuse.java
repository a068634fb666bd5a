package dev.baton.store.token;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Presents the token signed for a key again until {@code reuseFor} after its signing, instead of
 * signing an ES256 JWT per use (issue 13: a signature costs more CPU than the rest of a hand-out).
 * A token signed "in the future" means the clock went back, and is signed anew rather than
 * trusted. Expired entries go when their key is next seen, and all of them once the map holds
 * more than {@code maxEntries} keys (keys come and go). Only ever in memory.
 */
final class TokenReuse<K> {
    private record Issued(String token, Instant signed) {}

    private final Duration reuseFor;
    private final int maxEntries;
    private final Map<K, Issued> issued = new ConcurrentHashMap<>();

    TokenReuse(Duration reuseFor, int maxEntries) {
        this.reuseFor = reuseFor;
        this.maxEntries = maxEntries;
    }

    String issue(K key, Instant now, Supplier<String> sign) {
        Issued current = issued.get(key);
        if (current != null
                && !now.isBefore(current.signed())
                && now.isBefore(current.signed().plus(reuseFor))) {
            return current.token();
        }
        String token = sign.get();
        issued.put(key, new Issued(token, now));
        if (issued.size() > maxEntries)
            issued.values().removeIf(i -> !now.isBefore(i.signed().plus(reuseFor)));
        return token;
    }
}
