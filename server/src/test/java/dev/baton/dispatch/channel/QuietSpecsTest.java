package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Spec;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which specs a runner's ready may claim, given its noise and the specs' limits (decision 0052). */
class QuietSpecsTest {
    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    static Spec spec(String slug, Double max, Instant archived) {
        return new Spec(
                slug.length(),
                SpecUuid.random(),
                slug,
                Slug.of(slug),
                Architecture.X86_64,
                1,
                1L << 30,
                1L << 30,
                false,
                T0,
                T0,
                archived,
                null,
                false,
                max);
    }

    final AtomicInteger reads = new AtomicInteger();

    java.util.function.Supplier<Double> noise(Double cv) {
        return () -> {
            reads.incrementAndGet();
            return cv;
        };
    }

    @Test
    void withoutALimitTheReadyIsUnchangedAndTheNoiseNotRead() {
        List<Spec> served = List.of(spec("a", null, null), spec("b", null, null));
        assertThat(QuietSpecs.narrow(served, null, noise(0.5))).isNull();
        assertThat(QuietSpecs.narrow(served, List.of("a"), noise(0.5))).containsExactly("a");
        // an archived spec's limit does not count: it takes no jobs anyway
        assertThat(QuietSpecs.narrow(List.of(spec("a", null, null), spec("old", 0.01, T0)), null, noise(0.5)))
                .isNull();
        assertThat(reads).hasValue(0);
    }

    @Test
    void aSpecWhoseLimitTheRunnerExceedsIsLeftOut() {
        List<Spec> served = List.of(spec("any", null, null), spec("quiet", 0.02, null), spec("old", null, T0));
        assertThat(QuietSpecs.narrow(served, null, noise(0.03))).containsExactly("any");
        assertThat(QuietSpecs.narrow(served, null, noise(0.02)))
                .as("at the limit is within it")
                .containsExactly("any", "quiet");
        assertThat(QuietSpecs.narrow(served, null, noise(null)))
                .as("a runner never calibrated is not known to be quiet")
                .containsExactly("any");
    }

    @Test
    void aRoutersNarrowingIsKept() {
        List<Spec> served = List.of(spec("any", null, null), spec("quiet", 0.02, null));
        assertThat(QuietSpecs.narrow(served, List.of("quiet"), noise(0.01))).containsExactly("quiet");
        assertThat(QuietSpecs.narrow(served, List.of("quiet"), noise(0.5))).isEmpty();
    }
}
