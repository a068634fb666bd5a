package dev.baton.core.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DirectMappedCacheTest {
    @Test
    void aValueIsFoundByItsIdUntilAnotherIdTakesItsSlot() {
        DirectMappedCache<String> cache = new DirectMappedCache<>(16);
        assertThat(cache.get(7)).isNull();
        cache.put(7, "seven");
        cache.put(8, "eight");
        assertThat(cache.get(7)).isEqualTo("seven");
        assertThat(cache.get(8)).isEqualTo("eight");
        // 23 = 7 + 16 shares 7's slot: it is not answered with 7's value, and then evicts it
        assertThat(cache.get(23)).isNull();
        cache.put(23, "twenty-three");
        assertThat(cache.get(23)).isEqualTo("twenty-three");
        assertThat(cache.get(7)).isNull();
        assertThat(cache.get(8)).isEqualTo("eight");
    }

    @Test
    void aLaterPutForTheSameIdReplacesTheValue() {
        DirectMappedCache<String> cache = new DirectMappedCache<>(4);
        cache.put(3, "old");
        cache.put(3, "new");
        assertThat(cache.get(3)).isEqualTo("new");
    }

    @Test
    void idsBeyondIntAndNegativeIdsKeepTheirOwnValues() {
        DirectMappedCache<String> cache = new DirectMappedCache<>(4);
        long big = (1L << 40) + 1; // slot 1, like 1
        cache.put(big, "big");
        assertThat(cache.get(1)).isNull();
        assertThat(cache.get(big)).isEqualTo("big");
        cache.put(-3, "minus three"); // slot 1 as well (two's complement)
        assertThat(cache.get(-3)).isEqualTo("minus three");
        assertThat(cache.get(big)).isNull();
    }

    @Test
    void theSizeMustBeAPowerOfTwo() {
        assertThatThrownBy(() -> new DirectMappedCache<String>(12)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DirectMappedCache<String>(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new DirectMappedCache<String>(1).get(5)).isNull();
    }
}
