package dev.baton.router;

import dev.baton.protocol.value.RunnerKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The keys of the runners behind the router: a text file, one runner a line,
 * {@code <name> <sha256 of its key> <spec>[,<spec>…]}; {@code #} starts a comment. Only hashes
 * are stored, as the server stores them. The file is read again whenever it changes, so a key is
 * added or rotated ({@code baton router keys add|rotate}) without restarting the router, and a
 * rotated key is refused at the next connection. The router's own upstream key is never here.
 */
public final class RouterKeys {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final Pattern HASH = Pattern.compile("[0-9a-f]{64}");

    private final Path file;
    /** What the loaded file was: its modification time and file key (a rewrite is a new inode, seen even within one timestamp tick). */
    private List<Object> loaded;

    private Map<String, RunnerEntry> entries = Map.of();

    public RouterKeys(Path file) {
        this.file = file;
        reloadIfChanged();
    }

    /** The runner named {@code name} if {@code authorization} is {@code Bearer <its key>}. */
    public synchronized Optional<RunnerEntry> authenticate(String name, String authorization) {
        reloadIfChanged();
        RunnerEntry entry = entries.get(name);
        if (entry == null || authorization == null || !authorization.startsWith("Bearer ")) return Optional.empty();
        String hash;
        try {
            hash = RunnerKey.parse(authorization.substring("Bearer ".length()).strip())
                    .hash();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        boolean same = MessageDigest.isEqual(
                hash.getBytes(StandardCharsets.US_ASCII), entry.keyHash().getBytes(StandardCharsets.US_ASCII));
        return same ? Optional.of(entry) : Optional.empty();
    }

    public synchronized List<RunnerEntry> entries() {
        reloadIfChanged();
        return List.copyOf(entries.values());
    }

    private void reloadIfChanged() {
        try {
            List<Object> version = null;
            if (Files.exists(file)) {
                var attributes = Files.readAttributes(file, BasicFileAttributes.class);
                version = Arrays.asList(attributes.lastModifiedTime(), attributes.fileKey(), attributes.size());
            }
            if (version != null && version.equals(loaded)) return;
            entries = version == null ? Map.of() : parse(Files.readAllLines(file, StandardCharsets.UTF_8));
            loaded = version;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the router's keys file " + file, e);
        }
    }

    static Map<String, RunnerEntry> parse(List<String> lines) {
        Map<String, RunnerEntry> out = new LinkedHashMap<>();
        int n = 0;
        for (String raw : lines) {
            n++;
            String line = raw.replaceFirst("#.*", "").strip();
            if (line.isEmpty()) continue;
            String[] parts = line.split("\\s+");
            if (parts.length != 3
                    || !NAME.matcher(parts[0]).matches()
                    || !HASH.matcher(parts[1]).matches()) {
                throw new IllegalArgumentException(
                        "keys file line " + n + ": expected '<name> <sha256 hex> <spec>[,<spec>…]'");
            }
            var specs = new LinkedHashSet<>(Arrays.asList(parts[2].split(",")));
            specs.remove("");
            if (out.put(parts[0], new RunnerEntry(parts[0], parts[1], specs)) != null) {
                throw new IllegalArgumentException(
                        "keys file line " + n + ": runner '" + parts[0] + "' is listed twice");
            }
        }
        return out;
    }

    /**
     * Adds runner {@code name} (or, when it exists, gives it a new key: rotation) serving
     * {@code specs} (the existing ones when empty on rotation) and returns the new key, shown once.
     */
    public static RunnerKey issue(Path file, String name, List<String> specs) throws IOException {
        if (!NAME.matcher(name).matches())
            throw new IllegalArgumentException("runner name must be lowercase letters, digits and '-'");
        Map<String, RunnerEntry> current =
                Files.exists(file) ? parse(Files.readAllLines(file, StandardCharsets.UTF_8)) : new LinkedHashMap<>();
        RunnerEntry old = current.get(name);
        List<String> serving = !specs.isEmpty() ? specs : old == null ? List.of() : List.copyOf(old.specs());
        if (serving.isEmpty())
            throw new IllegalArgumentException("runner '" + name + "' needs at least one spec (--spec)");
        RunnerKey key = RunnerKey.generate();
        Map<String, RunnerEntry> next = new LinkedHashMap<>(current);
        next.put(name, new RunnerEntry(name, key.hash(), new LinkedHashSet<>(serving)));
        write(file, next.values());
        return key;
    }

    /** Removes runner {@code name}; returns whether it was there. */
    public static boolean remove(Path file, String name) throws IOException {
        if (!Files.exists(file)) return false;
        Map<String, RunnerEntry> current = new LinkedHashMap<>(parse(Files.readAllLines(file, StandardCharsets.UTF_8)));
        if (current.remove(name) == null) return false;
        write(file, current.values());
        return true;
    }

    private static void write(Path file, Iterable<RunnerEntry> entries) throws IOException {
        List<String> lines = new ArrayList<>(List.of(
                "# runners behind this Baton router: <name> <sha256 of key> <specs>",
                "# managed by 'baton router keys'; only hashes are kept"));
        for (RunnerEntry e : entries) lines.add(e.name() + " " + e.keyHash() + " " + String.join(",", e.specs()));
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, lines, StandardCharsets.UTF_8);
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the hashes are not secrets, the file mode is only tidiness
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
