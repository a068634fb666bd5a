package dev.baton.core.microvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/** Finds the guest kernel: Debian installs {@code /boot/vmlinuz-<version>} beside {@code /lib/modules/<version>}. */
public final class MicroVmKernels {
    private MicroVmKernels() {}

    /** The newest {@code vmlinuz-<version>} in {@code boot} whose modules are installed. */
    public static Optional<Path> newest(Path boot, Path modulesRoot) throws IOException {
        if (!Files.isDirectory(boot)) return Optional.empty();
        try (Stream<Path> files = Files.list(boot)) {
            return files.filter(p -> p.getFileName().toString().startsWith("vmlinuz-"))
                    .filter(p -> Files.isRegularFile(modulesFor(p, modulesRoot).resolve("modules.dep")))
                    .max(Comparator.comparing(p -> p.getFileName().toString()));
        }
    }

    /** {@code /lib/modules/<version>} for {@code vmlinuz-<version>}. */
    public static Path modulesFor(Path kernel, Path modulesRoot) {
        String name = kernel.getFileName().toString();
        return modulesRoot.resolve(name.startsWith("vmlinuz-") ? name.substring("vmlinuz-".length()) : name);
    }
}
