package dev.baton.runner.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.NoiseCode;
import dev.baton.runner.testing.HostFacts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fingerprint of this very machine, checked against what /proc and /sys say when the test
 * reads them itself (never against hard-coded values); and the noise rules, on a tree written in
 * the kernel's file formats, because this machine cannot be switched to a powersave governor or
 * SMT for a test.
 */
class MachineInspectorTest {
    private static final MachineInspector.ExecutorInfo PROCESS =
            new MachineInspector.ExecutorInfo("process", null, "test");
    private static final Path SYS_CPU = Path.of("/sys/devices/system/cpu");

    @TempDir
    Path tree;

    private static List<String> codes(MachineFingerprint fp) {
        return fp.warnings().stream().map(MachineFingerprint.Warning::code).toList();
    }

    @Test
    void thisMachinesFingerprintIsWhatProcAndSysSay() throws Exception {
        MachineFingerprint fp =
                MachineInspector.ofHost(Optional.empty(), Clock.systemUTC()).read(PROCESS);

        String model = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                .filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).strip())
                .findFirst()
                .orElse(null);
        assertThat(fp.cpuModel()).isEqualTo(model);
        CpuList online = CpuList.parse(HostFacts.read(SYS_CPU.resolve("online")));
        assertThat(fp.cpus()).isEqualTo(online.size());
        assertThat(fp.jobCpus())
                .as("no benchmark CPUs configured: the job may run on every online CPU")
                .isEqualTo(online.toString());
        assertThat(fp.kernel()).isEqualTo(HostFacts.read(Path.of("/proc/sys/kernel/osrelease")));
        // Free memory moves; the total does not.
        assertThat(fp.memoryTotal()).isEqualTo(HostFacts.meminfo("MemTotal"));
        assertThat(fp.swapTotal()).isEqualTo(HostFacts.meminfo("SwapTotal"));
        assertThat(fp.memoryAvailable()).isPositive().isLessThanOrEqualTo(fp.memoryTotal());
        assertThat(fp.loadAverage()).hasSize(3).allSatisfy(l -> assertThat(l).isNotNegative());
        assertThat(codes(fp).contains("swap")).isEqualTo(HostFacts.meminfo("SwapTotal") > 0);

        // cpufreq: the governor is reported exactly when every online CPU has one, else unknown with a warning.
        boolean cpufreq = online.cpus().stream()
                .allMatch(c -> Files.exists(SYS_CPU.resolve("cpu" + c + "/cpufreq/scaling_governor")));
        if (cpufreq) {
            assertThat(fp.governor()).isNotNull();
            assertThat(codes(fp)).doesNotContain("frequency_unknown");
            assertThat(codes(fp).contains("governor")).isEqualTo(!fp.governor().equals("performance"));
        } else {
            assertThat(fp.governor()).isNull();
            assertThat(codes(fp)).contains("frequency_unknown");
        }
        Path smt = SYS_CPU.resolve("smt/control");
        assertThat(fp.smt()).isEqualTo(Files.exists(smt) ? HostFacts.read(smt) : null);
        Path active = SYS_CPU.resolve("smt/active");
        if (Files.exists(active))
            assertThat(codes(fp).contains("smt"))
                    .isEqualTo(HostFacts.read(active).equals("1"));
        Path noTurbo = SYS_CPU.resolve("intel_pstate/no_turbo");
        Path boost = SYS_CPU.resolve("cpufreq/boost");
        if (Files.exists(noTurbo))
            assertThat(fp.turbo()).isEqualTo(HostFacts.read(noTurbo).equals("0"));
        else if (Files.exists(boost))
            assertThat(fp.turbo()).isEqualTo(HostFacts.read(boost).equals("1"));
        else
            assertThat(fp.turbo())
                    .as("no turbo control here: unknown, not guessed")
                    .isNull();

        assertThat(fp.jobCpusBusy()).isBetween(0.0, 1.0);
        if (codes(fp).contains("busy_cpus")) assertThat(fp.jobCpusBusy()).isPositive();
        assertThat(fp.executor()).isEqualTo("process");
        assertThat(fp.runnerVersion()).isEqualTo("test");
        assertThat(fp.clean()).isEqualTo(fp.warnings().isEmpty());
    }

    @Test
    void benchmarkCpusAreTheOnesWatched() throws Exception {
        CpuList online = CpuList.parse(HostFacts.read(SYS_CPU.resolve("online")));
        CpuList last = new CpuList(new java.util.TreeSet<>(List.of(online.cpus().last())));
        MachineFingerprint fp =
                MachineInspector.ofHost(Optional.of(last), Clock.systemUTC()).read(PROCESS);
        assertThat(fp.jobCpus()).isEqualTo(last.toString());
        assertThat(fp.cpus()).isEqualTo(online.size());
    }

    // ---- the noise rules, on a tree in the kernel's formats -----------------------------------

    private void write(String relative, String content) throws IOException {
        Path p = tree.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    private static String stat(long cpu1Busy, long cpu1Idle) {
        // cpu user nice system idle iowait irq softirq steal guest guest_nice
        return "cpu  100 0 100 1000 0 0 0 0 0 0\n"
                + "cpu0 50 0 50 500 0 0 0 0 0 0\n"
                + "cpu1 " + cpu1Busy + " 0 0 " + cpu1Idle + " 0 0 0 0 0 0\n"
                + "intr 1\n";
    }

    private void noisyMachine() throws IOException {
        write(
                "proc/cpuinfo",
                "processor\t: 0\nmodel name\t: Test CPU @ 3.00GHz\n\nprocessor\t: 1\nmodel name\t: Test CPU @ 3.00GHz\n");
        write("sys/devices/system/cpu/online", "0-1\n");
        write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
        write("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
        write("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
        write("sys/devices/system/cpu/smt/control", "on\n");
        write("sys/devices/system/cpu/smt/active", "1\n");
        write("proc/sys/kernel/osrelease", "6.1.0-test\n");
        write(
                "proc/meminfo",
                "MemTotal:       16384000 kB\nMemFree:         1000 kB\nMemAvailable:    8192000 kB\nSwapTotal:       2097148 kB\n");
        write("proc/loadavg", "3.10 2.05 1.00 4/300 12345\n");
        write("proc/stat", stat(100, 1000));
    }

    /** Between the two reads of /proc/stat, CPU 1 spends 60 of 100 ticks busy. */
    private MachineInspector inspector(Optional<CpuList> cpus) {
        Clock fixed = Clock.fixed(Instant.parse("2026-11-24T06:00:00Z"), ZoneOffset.UTC);
        return new MachineInspector(tree, cpus, Duration.ofMillis(100), fixed, d -> {
            try {
                write("proc/stat", stat(160, 1040));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void everyNoisySettingIsNamed() throws Exception {
        noisyMachine();
        MachineFingerprint fp = inspector(Optional.of(CpuList.parse("1")))
                .read(new MachineInspector.ExecutorInfo("runc", "runc version 1.1.5", "0.1.0"));
        assertThat(fp.cpuModel()).isEqualTo("Test CPU @ 3.00GHz");
        assertThat(fp.cpus()).isEqualTo(2);
        assertThat(fp.jobCpus()).isEqualTo("1");
        assertThat(fp.governor()).isEqualTo("powersave");
        assertThat(fp.turbo()).isTrue();
        assertThat(fp.smt()).isEqualTo("on");
        assertThat(fp.kernel()).isEqualTo("6.1.0-test");
        assertThat(fp.memoryTotal()).isEqualTo(16384000L * 1024);
        assertThat(fp.memoryAvailable()).isEqualTo(8192000L * 1024);
        assertThat(fp.swapTotal()).isEqualTo(2097148L * 1024);
        assertThat(fp.loadAverage()).containsExactly(3.10, 2.05, 1.00);
        assertThat(fp.jobCpusBusy()).isEqualTo(0.6);
        assertThat(fp.executorVersion()).isEqualTo("runc version 1.1.5");
        assertThat(codes(fp))
                .containsExactly(
                        NoiseCode.GOVERNOR.wireName(),
                        NoiseCode.TURBO.wireName(),
                        NoiseCode.SMT.wireName(),
                        NoiseCode.SWAP.wireName(),
                        NoiseCode.BUSY_CPUS.wireName());
        assertThat(fp.warnings().getLast().message()).contains("CPU 1 60%");
    }

    @Test
    void aQuietMachineIsClean() throws Exception {
        noisyMachine();
        write("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
        write("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
        write("sys/devices/system/cpu/smt/active", "0\n");
        write(
                "proc/meminfo",
                "MemTotal:       16384000 kB\nMemAvailable:    8192000 kB\nSwapTotal:             0 kB\n");
        MachineInspector quiet = new MachineInspector(
                tree, Optional.of(CpuList.parse("1")), Duration.ofMillis(100), Clock.systemUTC(), d -> {
                    try {
                        write("proc/stat", stat(101, 1099)); // 1 of 100 ticks busy: below the threshold
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                });
        MachineFingerprint fp = quiet.read(PROCESS);
        assertThat(fp.warnings()).isEmpty();
        assertThat(fp.clean()).isTrue();
        assertThat(fp.turbo()).isFalse();
    }

    @Test
    void whatIsAbsentIsUnknownNotGuessed() throws Exception {
        write("proc/cpuinfo", "processor\t: 0\n"); // no model name (some ARM kernels)
        write("sys/devices/system/cpu/online", "0\n");
        write("proc/stat", stat(0, 0));
        MachineFingerprint fp = inspector(Optional.empty()).read(PROCESS);
        assertThat(fp.cpuModel()).isNull();
        assertThat(fp.governor()).isNull();
        assertThat(fp.turbo()).isNull();
        assertThat(fp.smt()).isNull();
        assertThat(fp.kernel()).isNull();
        assertThat(fp.memoryTotal()).isNull();
        assertThat(fp.loadAverage()).isNull();
        assertThat(fp.jobCpus()).isEqualTo("0");
        assertThat(fp.jobCpusBusy()).as("CPU 0 did not tick in the sample").isNull();
        assertThat(codes(fp)).containsExactly("frequency_unknown");
    }
}
