package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class QemuMicrovmTest {
    private static final Path D = Path.of("/w");
    private final Hypervisor.Vm vm = new Hypervisor.Vm(
            "baton-vm-x-1",
            D.resolve("k"),
            D.resolve("i"),
            "console=ttyS0",
            2,
            224,
            D.resolve("disk"),
            false,
            D.resolve("so"),
            D.resolve("se"),
            D.resolve("ctl"),
            D.resolve("con"));

    private static String append(List<String> command) {
        return command.get(command.indexOf("-append") + 1);
    }

    @Test
    void underTcgTheGuestIsToldTheHostsTscRateAndKeepsTheTscAsItsClock() {
        List<String> c = new QemuMicrovm("qemu", "tcg", OptionalLong.of(2_596_124)).command(vm);
        assertThat(append(c)).isEqualTo("console=ttyS0 tsc_early_khz=2596124 tsc=reliable");
        assertThat(c)
                .containsSequence("-accel", "tcg")
                .containsSequence("-smp", "2")
                .containsSequence("-m", "224M")
                .containsSequence("-nic", "none")
                .doesNotContain("-cpu");
    }

    @Test
    void withAnUnknownRateOrKvmTheCommandLineIsLeftAlone() {
        assertThat(append(new QemuMicrovm("qemu", "tcg", OptionalLong.empty()).command(vm)))
                .isEqualTo("console=ttyS0");
        List<String> kvm = new QemuMicrovm("qemu", "kvm", OptionalLong.of(2_596_124)).command(vm);
        assertThat(append(kvm)).isEqualTo("console=ttyS0");
        assertThat(kvm).containsSequence("-cpu", "host");
    }
}
