package dev.baton.runner.executor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The image's {@code User} as numeric ids: {@code uid[:gid]} or names looked up in the unpacked
 * image's {@code /etc/passwd} and {@code /etc/group} (never the host's; a symbolic link there is
 * not followed). No user means root; a name without a group takes the user's primary group; a
 * uid without a group takes gid 0.
 */
record ImageUser(long uid, long gid) {
    static final ImageUser ROOT = new ImageUser(0, 0);

    boolean isRoot() {
        return uid == 0 && gid == 0;
    }

    static ImageUser resolve(String spec, Path rootfs) throws DeclinedException {
        if (spec == null || spec.isEmpty()) return ROOT;
        String[] parts = spec.split(":", 2);
        try {
            long uid;
            long gid = -1;
            if (parts[0].matches("\\d+")) uid = Long.parseLong(parts[0]);
            else {
                String[] entry = lookup(rootfs.resolve("etc/passwd"), parts[0]);
                if (entry == null || entry.length < 4)
                    throw new DeclinedException("image user " + parts[0] + " not found in /etc/passwd");
                uid = Long.parseLong(entry[2]);
                gid = Long.parseLong(entry[3]);
            }
            if (parts.length == 2) {
                if (parts[1].matches("\\d+")) gid = Long.parseLong(parts[1]);
                else {
                    String[] entry = lookup(rootfs.resolve("etc/group"), parts[1]);
                    if (entry == null || entry.length < 3)
                        throw new DeclinedException("image group " + parts[1] + " not found in /etc/group");
                    gid = Long.parseLong(entry[2]);
                }
            }
            return new ImageUser(uid, gid < 0 ? 0 : gid);
        } catch (NumberFormatException e) {
            throw new DeclinedException("image user '" + spec + "' has a malformed id: " + e.getMessage());
        }
    }

    private static String[] lookup(Path file, String name) {
        try {
            if (Files.isSymbolicLink(file) || !Files.isRegularFile(file)) return null;
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split(":");
                if (f.length > 0 && f[0].equals(name)) return f;
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
