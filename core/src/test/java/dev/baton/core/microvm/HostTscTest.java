package dev.baton.core.microvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostTscTest {
    @TempDir
    Path dir;

    @Test
    void theFirstCpuMhzIsTheTscRateInKhzWhenNoCpufreqDriverScalesIt() throws Exception {
        Path cpuinfo = Files.writeString(
                dir.resolve("cpuinfo"),
                "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2596.124\n"
                        + "processor\t: 1\ncpu MHz\t\t: 2000.000\n");
        assertThat(HostTsc.khz(cpuinfo, dir.resolve("no-cpufreq"))).isEqualTo(OptionalLong.of(2_596_124));
    }

    @Test
    void nothingWhenACpufreqDriverMayScaleTheClockOrTheValueIsMissingOrAbsurd() throws Exception {
        Path cpuinfo = Files.writeString(dir.resolve("cpuinfo"), "cpu MHz\t\t: 2596.124\n");
        Path cpufreq = Files.createDirectory(dir.resolve("cpufreq"));
        assertThat(HostTsc.khz(cpuinfo, cpufreq)).isEmpty();
        assertThat(HostTsc.khz(Files.writeString(dir.resolve("none"), "processor\t: 0\n"), dir.resolve("x")))
                .isEmpty();
        assertThat(HostTsc.khz(Files.writeString(dir.resolve("bad"), "cpu MHz\t\t: fast\n"), dir.resolve("x")))
                .isEmpty();
        assertThat(HostTsc.khz(Files.writeString(dir.resolve("tiny"), "cpu MHz\t\t: 0.5\n"), dir.resolve("x")))
                .isEmpty();
        assertThat(HostTsc.khz(dir.resolve("missing"), dir.resolve("x"))).isEmpty();
    }
}
