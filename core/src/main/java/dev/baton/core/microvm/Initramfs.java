package dev.baton.core.microvm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A microVM guest's initramfs, built from installed packages, never from downloads: busybox-static's
 * {@code /bin/busybox} as {@code /bin/busybox}, the kernel modules a guest needs (the Debian kernel
 * keeps virtio, 9p and ext4 as modules) copied from the kernel's {@code /lib/modules/<version>} in
 * dependency order (read from its {@code modules.dep}), and the caller's {@code /init}. Packed with
 * {@code cpio -o -H newc}. Shared by the runner's microVM executor (a guest per job iteration) and
 * the server's {@code microvm} pool provider (a guest per single-job runner).
 */
public final class Initramfs {
    private Initramfs() {}

    /**
     * Writes an initramfs to {@code target}: busybox, the {@code modules} (and their dependencies,
     * in load order, listed in {@code /modules/order}) and {@code init} as {@code /init}.
     */
    public static void build(Path target, Path busybox, Path modulesDir, Path cpio, String init, List<String> modules)
            throws IOException {
        Path staging = target.resolveSibling(target.getFileName() + ".d");
        deleteTree(staging);
        Files.createDirectories(staging.resolve("bin"));
        Files.createDirectories(staging.resolve("modules"));
        Files.copy(busybox, staging.resolve("bin/busybox"), StandardCopyOption.REPLACE_EXISTING);
        staging.resolve("bin/busybox").toFile().setExecutable(true, false);
        Path initFile = staging.resolve("init");
        Files.writeString(initFile, init, StandardCharsets.UTF_8);
        initFile.toFile().setExecutable(true, false);
        List<String> order = new ArrayList<>();
        for (Path module : loadOrder(modulesDir, modules)) {
            Files.copy(
                    modulesDir.resolve(module),
                    staging.resolve("modules").resolve(module.getFileName()),
                    StandardCopyOption.REPLACE_EXISTING);
            order.add(module.getFileName().toString());
        }
        Files.write(staging.resolve("modules/order"), order);
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Process p = new ProcessBuilder(
                        "sh",
                        "-c",
                        "cd \"$1\" && find . | \"$2\" -o -H newc --quiet > \"$3\"",
                        "sh",
                        staging.toString(),
                        cpio.toString(),
                        tmp.toString())
                .redirectErrorStream(true)
                .start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0)
                throw new IOException("cpio failed: " + out.strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            deleteTree(staging);
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Module files (relative to {@code modulesDir}) in an order insmod accepts: each module after
     * its dependencies. modules.dep lists a module's full dependency closure, deepest last.
     */
    public static List<Path> loadOrder(Path modulesDir, List<String> wanted) throws IOException {
        Map<String, String> pathByName = new HashMap<>();
        Map<String, List<String>> deps = new HashMap<>();
        for (String line : Files.readAllLines(modulesDir.resolve("modules.dep"))) {
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String module = line.substring(0, colon);
            String name = moduleName(module);
            pathByName.put(name, module);
            List<String> d = new ArrayList<>();
            for (String dep : line.substring(colon + 1).trim().split("\\s+")) if (!dep.isEmpty()) d.add(dep);
            deps.put(module, d);
        }
        Set<String> ordered = new LinkedHashSet<>();
        for (String name : wanted) {
            String module = pathByName.get(name);
            if (module == null) continue; // built into the kernel
            visit(module, deps, ordered, new java.util.HashSet<>());
        }
        return ordered.stream().map(Path::of).toList();
    }

    private static void visit(
            String module, Map<String, List<String>> deps, Set<String> ordered, Set<String> visiting) {
        if (ordered.contains(module) || !visiting.add(module)) return;
        for (String dep : deps.getOrDefault(module, List.of())) visit(dep, deps, ordered, visiting);
        ordered.add(module);
    }

    private static String moduleName(String path) {
        String file = path.substring(path.lastIndexOf('/') + 1);
        int dot = file.indexOf(".ko");
        return (dot < 0 ? file : file.substring(0, dot)).replace('-', '_');
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
