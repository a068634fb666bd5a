package dev.baton.runner.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CpuListTest {
    @Test
    void readsAndWritesTheKernelsListFormat() {
        assertThat(CpuList.parse("0-3,8,10-11\n").cpus()).containsExactly(0, 1, 2, 3, 8, 10, 11);
        assertThat(CpuList.parse("0-3,8,10-11").toString()).isEqualTo("0-3,8,10-11");
        assertThat(CpuList.parse("3,1,2").toString()).isEqualTo("1-3");
        assertThat(CpuList.parse("1").size()).isOne();
    }

    @Test
    void refusesWhatIsNotACpuList() {
        for (String bad : new String[] {"", "a", "3-1", "1-2-3", "-1", "99999"}) {
            assertThatThrownBy(() -> CpuList.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
