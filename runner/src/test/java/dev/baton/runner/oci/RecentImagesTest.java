package dev.baton.runner.oci;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.value.ImageDigest;
import org.junit.jupiter.api.Test;

class RecentImagesTest {
    private static ImageDigest image(int n) {
        return ImageDigest.of(String.format("sha256:%064x", n));
    }

    @Test
    void mostRecentFirstWithoutRepeatsAndBounded() {
        RecentImages held = new RecentImages(3);
        held.used(image(1));
        held.used(image(2));
        held.used(image(1));
        assertThat(held.mostRecentFirst()).containsExactly(image(1), image(2));
        held.used(image(3));
        held.used(image(4));
        assertThat(held.mostRecentFirst()).containsExactly(image(4), image(3), image(1));
    }
}
