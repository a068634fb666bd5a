package dev.baton.api;

import dev.baton.protocol.value.Slug;
import dev.baton.store.StoreException;
import dev.baton.web.http.ApiException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.function.Function;

/**
 * Inserts a row under a unique slug. An explicit slug that is taken is the caller's conflict
 * (409 slug_taken); a slug derived from the name gets a random suffix instead, so creating two
 * runners called "gpu" just works.
 */
final class Slugs {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int ATTEMPTS = 4;

    private Slugs() {}

    static <T> T insert(String name, Slug explicit, Function<Slug, T> insert) {
        if (explicit != null) {
            try {
                return insert.apply(explicit);
            } catch (StoreException e) {
                if (e.reason() == StoreException.Reason.CONFLICT) throw taken(explicit);
                throw e;
            }
        }
        Slug base = Slug.fromName(name);
        Slug candidate = base;
        for (int i = 0; ; i++) {
            try {
                return insert.apply(candidate);
            } catch (StoreException e) {
                if (e.reason() != StoreException.Reason.CONFLICT || i == ATTEMPTS - 1) throw e;
                byte[] suffix = new byte[4];
                RANDOM.nextBytes(suffix);
                candidate = base.withSuffix(HexFormat.of().formatHex(suffix));
            }
        }
    }

    static ApiException taken(Slug slug) {
        return new ApiException(409, "slug_taken", "slug '" + slug + "' is already taken", "slug");
    }
}
