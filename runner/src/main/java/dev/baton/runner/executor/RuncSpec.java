package dev.baton.runner.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.model.SpecView;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The OCI runtime config ({@code config.json}) of one iteration, from the spec's limits and the
 * resolved process. Isolation: fresh pid, ipc, uts, mount (and cgroup) namespaces; a network
 * namespace with only loopback unless the spec allows network; a user namespace mapping
 * container root to an unprivileged host range where available; read-only root, a writable
 * {@code /work} bind mount and a tmpfs {@code /tmp}; memory limit with swap equal to it (so no
 * swap), CPU quota of the spec's CPUs and an optional cpuset, a pids limit; a minimal capability
 * set and no new privileges.
 */
final class RuncSpec {
    static final String WORK = "/work";
    static final long PERIOD = 100_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Host range container ids map to when a user namespace is used. */
    record UserNamespace(long hostId, long size) {}

    record Process(List<String> args, List<String> env, String cwd, long uid, long gid) {}

    private RuncSpec() {}

    static ObjectNode build(
            SpecView spec,
            Process process,
            Path workDir,
            Optional<String> cpuset,
            int pidsLimit,
            Optional<UserNamespace> userns) {
        ObjectNode root = JSON.createObjectNode();
        root.put("ociVersion", "1.0.2");

        ObjectNode p = root.putObject("process");
        p.put("terminal", false);
        p.putObject("user").put("uid", process.uid()).put("gid", process.gid());
        strings(p.putArray("args"), process.args());
        strings(p.putArray("env"), process.env());
        p.put("cwd", process.cwd());
        ObjectNode caps = p.putObject("capabilities");
        for (String set : List.of("bounding", "effective", "permitted")) {
            strings(caps.putArray(set), List.of("CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"));
        }
        p.putArray("rlimits")
                .addObject()
                .put("type", "RLIMIT_NOFILE")
                .put("hard", 1024)
                .put("soft", 1024);
        p.put("noNewPrivileges", true);

        root.putObject("root").put("path", "rootfs").put("readonly", true);
        root.put("hostname", "baton");

        ArrayNode mounts = root.putArray("mounts");
        mount(mounts, "/proc", "proc", "proc", List.of());
        mount(mounts, "/dev", "tmpfs", "tmpfs", List.of("nosuid", "strictatime", "mode=755", "size=65536k"));
        mount(
                mounts,
                "/dev/pts",
                "devpts",
                "devpts",
                List.of("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"));
        mount(mounts, "/dev/shm", "tmpfs", "shm", List.of("nosuid", "noexec", "nodev", "mode=1777", "size=65536k"));
        mount(mounts, "/dev/mqueue", "mqueue", "mqueue", List.of("nosuid", "noexec", "nodev"));
        if (spec.network()) {
            // sysfs can only be mounted by the owner of the network namespace: bind the host's, read-only.
            mount(mounts, "/sys", "none", "/sys", List.of("rbind", "nosuid", "noexec", "nodev", "ro"));
        } else {
            mount(mounts, "/sys", "sysfs", "sysfs", List.of("nosuid", "noexec", "nodev", "ro"));
            mount(mounts, "/sys/fs/cgroup", "cgroup", "cgroup", List.of("nosuid", "noexec", "nodev", "relatime", "ro"));
        }
        long tmpSize = spec.memory() > 0 ? spec.memory() : 64L << 20;
        mount(mounts, "/tmp", "tmpfs", "tmpfs", List.of("nosuid", "nodev", "mode=1777", "size=" + tmpSize));
        mount(mounts, WORK, "none", workDir.toString(), List.of("rbind", "rw", "nosuid", "nodev"));

        ObjectNode linux = root.putObject("linux");
        ArrayNode ns = linux.putArray("namespaces");
        for (String type : List.of("pid", "ipc", "uts", "mount", "cgroup"))
            ns.addObject().put("type", type);
        if (!spec.network()) ns.addObject().put("type", "network"); // a fresh one: loopback only
        userns.ifPresent(u -> {
            ns.addObject().put("type", "user");
            linux.putArray("uidMappings")
                    .addObject()
                    .put("containerID", 0)
                    .put("hostID", u.hostId())
                    .put("size", u.size());
            linux.putArray("gidMappings")
                    .addObject()
                    .put("containerID", 0)
                    .put("hostID", u.hostId())
                    .put("size", u.size());
        });
        ObjectNode resources = linux.putObject("resources");
        resources.putArray("devices").addObject().put("allow", false).put("access", "rwm");
        if (spec.memory() > 0) {
            resources.putObject("memory").put("limit", spec.memory()).put("swap", spec.memory());
        }
        ObjectNode cpu = resources.putObject("cpu");
        if (spec.cpu() > 0) cpu.put("quota", spec.cpu() * PERIOD).put("period", PERIOD);
        cpuset.ifPresent(c -> cpu.put("cpus", c));
        resources.putObject("pids").put("limit", pidsLimit);
        strings(
                linux.putArray("maskedPaths"),
                List.of(
                        "/proc/acpi",
                        "/proc/asound",
                        "/proc/kcore",
                        "/proc/keys",
                        "/proc/latency_stats",
                        "/proc/timer_list",
                        "/proc/timer_stats",
                        "/proc/sched_debug",
                        "/sys/firmware",
                        "/proc/scsi"));
        strings(
                linux.putArray("readonlyPaths"),
                List.of("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"));
        return root;
    }

    private static void mount(ArrayNode mounts, String destination, String type, String source, List<String> options) {
        ObjectNode m = mounts.addObject();
        m.put("destination", destination).put("type", type).put("source", source);
        strings(m.putArray("options"), options);
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }
}
