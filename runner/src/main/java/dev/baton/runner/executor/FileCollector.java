package dev.baton.runner.executor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads the job's {@code file_paths} after an iteration. A requested path is mapped to a host
 * path inside a boundary directory (the work dir, the rootfs); it is refused if it names a parent
 * ({@code ..}), if its real path — symlinks followed — leaves the boundary, or if it is not a
 * regular file (a FIFO would block the reader, a device would leak). Count and size are bounded;
 * a file over the size bound is truncated with a marker.
 */
public final class FileCollector {

    /** Where a requested path lives on the host, and the directory it must not leave. */
    public record Location(Path boundary, Path path) {}

    public record Collected(Map<String, String> files, List<String> refused) {}

    private final OutputLimits limits;

    public FileCollector(OutputLimits limits) {
        this.limits = limits;
    }

    /** @param locate maps a requested path (already checked for {@code ..}) to its host location, or empty if it cannot exist */
    public Collected collect(List<String> requested, Function<String, Optional<Location>> locate) {
        Map<String, String> files = new LinkedHashMap<>();
        List<String> refused = new ArrayList<>();
        if (requested == null) return new Collected(files, refused);
        long total = 0;
        for (String name : requested) {
            if (files.size() >= limits.files()) {
                refused.add(name + ": more than " + limits.files() + " files requested");
                continue;
            }
            if (name == null || name.isEmpty() || name.indexOf('\0') >= 0) {
                refused.add("'" + name + "': not a valid path");
                continue;
            }
            if (hasParentSegment(name)) {
                refused.add(name + ": escapes its directory (..)");
                continue;
            }
            Optional<Location> location = locate.apply(name);
            if (location.isEmpty()) continue; // e.g. on a tmpfs that is gone: simply absent
            Location loc = location.get();
            if (!Files.exists(loc.path(), LinkOption.NOFOLLOW_LINKS)) continue; // the workload did not write it
            try {
                Path boundary = loc.boundary().toRealPath();
                Path real = loc.path().toRealPath();
                if (!real.startsWith(boundary)) {
                    refused.add(name + ": escapes its directory (through a symbolic link)");
                    continue;
                }
                if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
                    refused.add(name + ": not a regular file");
                    continue;
                }
                int room = (int) Math.min(limits.fileBytes(), Math.max(0, limits.totalFileBytes() - total));
                String content = read(real, room);
                total += Math.min(room, Files.size(real));
                files.put(name, content);
            } catch (IOException e) {
                if (Files.isSymbolicLink(loc.path())) refused.add(name + ": dangling or unreadable symbolic link");
                else refused.add(name + ": cannot be read (" + e.getMessage() + ")");
            }
        }
        return new Collected(files, refused);
    }

    static boolean hasParentSegment(String path) {
        for (String segment : path.split("/")) if (segment.equals("..")) return true;
        return false;
    }

    private static String read(Path file, int limit) throws IOException {
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] kept = in.readNBytes(limit);
            long dropped = 0;
            byte[] skip = new byte[8192];
            int n;
            while ((n = in.read(skip)) > 0) dropped += n;
            String text = new String(kept, StandardCharsets.UTF_8);
            return dropped == 0 ? text : text + BoundedCapture.MARKER.formatted(dropped);
        }
    }
}
