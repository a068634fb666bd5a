package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SpecCacheTest {
    private static Spec spec(String name) {
        Instant t = Instant.parse("2026-11-24T05:00:00Z");
        return new Spec(
                1,
                SpecUuid.random(),
                name,
                Slug.of("s"),
                Architecture.parse("x86_64"),
                1,
                1,
                1,
                false,
                t,
                t,
                null,
                null);
    }

    @Test
    void servesALoadedSpecUntilAWriteInvalidatesIt() {
        SpecCache cache = new SpecCache();
        AtomicInteger loads = new AtomicInteger();
        Spec first = spec("first");
        assertThat(cache.get(1, id -> {
                    loads.incrementAndGet();
                    return Optional.of(first);
                }))
                .contains(first);
        assertThat(cache.get(1, id -> {
                    loads.incrementAndGet();
                    return Optional.of(spec("unused"));
                }))
                .contains(first);
        assertThat(loads).hasValue(1);

        cache.invalidate();
        Spec second = spec("second");
        assertThat(cache.get(1, id -> Optional.of(second))).contains(second);
    }

    @Test
    void aSpecNamedBySlugOrUuidIsServedUntilAWriteAndAMissingOneIsNeverRemembered() {
        SpecCache cache = new SpecCache();
        AtomicInteger loads = new AtomicInteger();
        Spec first = spec("first");
        assertThat(cache.get("slug:s", () -> {
                    loads.incrementAndGet();
                    return Optional.of(first);
                }))
                .contains(first);
        assertThat(cache.get("slug:s", () -> {
                    loads.incrementAndGet();
                    return Optional.of(spec("unused"));
                }))
                .contains(first);
        assertThat(loads).hasValue(1);
        assertThat(cache.get("slug:missing", Optional::empty)).isEmpty();
        Spec created = spec("created");
        assertThat(cache.get("slug:missing", () -> Optional.of(created))).contains(created);

        cache.invalidate();
        Spec renamed = spec("renamed");
        assertThat(cache.get("slug:s", () -> Optional.of(renamed))).contains(renamed);
        // A read that raced a write is not served after it either.
        cache.get("slug:t", () -> {
            cache.invalidate();
            return Optional.of(first);
        });
        assertThat(cache.get("slug:t", () -> Optional.of(renamed))).contains(renamed);
    }

    @Test
    void aReadThatRacedAWriteIsNeverServedAfterIt() {
        SpecCache cache = new SpecCache();
        Spec old = spec("old");
        // The read begins, the write commits and invalidates, then the read stores what it saw.
        cache.get(1, id -> {
            cache.invalidate();
            return Optional.of(old);
        });
        Spec fresh = spec("fresh");
        assertThat(cache.get(1, id -> Optional.of(fresh))).contains(fresh);
    }
}
