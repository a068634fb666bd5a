package dev.baton.runner.executor;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Process groups as Linux shows them in {@code /proc}: who is in a group, when its leader
 * started, and killing every member. Java's {@link ProcessHandle} knows parents and children but
 * not groups; a job that double-forks leaves the agent's process tree but not its group.
 */
final class ProcessGroups {
    private static final Path PROC = Path.of("/proc");

    private ProcessGroups() {}

    /** One line of {@code /proc/<pid>/stat}, the fields Baton needs. */
    record Stat(long pid, char state, long pgrp, long session, long startTicks) {}

    /** The process's stat, or empty when it is gone (or this is not Linux). */
    static Optional<Stat> stat(long pid) {
        try {
            String line = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
            // comm (field 2) is in parentheses and may itself contain spaces and parentheses.
            String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Optional.of(
                    new Stat(pid, f[0].charAt(0), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[19])));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** When the process started, in clock ticks since boot (exact, unlike ProcessHandle's instant). */
    static OptionalLong startTicks(long pid) {
        return stat(pid).map(s -> OptionalLong.of(s.startTicks())).orElse(OptionalLong.empty());
    }

    /** This boot's id, so that a record from before a reboot never names today's processes. */
    static String bootId() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** Living members (zombies excluded) of process group {@code pgid} that are also in session {@code pgid}. */
    static List<Long> members(long pgid) {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(
                PROC, p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path dir : dirs) {
                stat(Long.parseLong(dir.getFileName().toString()))
                        .filter(s -> s.pgrp() == pgid && s.session() == pgid && s.state() != 'Z')
                        .ifPresent(s -> out.add(s.pid()));
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /**
     * Whether group {@code pgid} is still the one whose leader started at {@code leaderStart}.
     * While any member lives the kernel does not hand the id to a new process; once the leader
     * is gone and the id belongs to a new process, that process is someone else's.
     */
    static boolean sameGroup(long pgid, long leaderStart) {
        Optional<Stat> leader = stat(pgid);
        return leader.isEmpty() || leaderStart < 0 || leader.get().startTicks() == leaderStart;
    }

    /**
     * Signals every member of the group: TERM, or KILL when {@code kill}. With KILL it repeats
     * until the group is empty, since a member may fork while the others die.
     *
     * @return how many processes were signalled
     */
    static int signal(long pgid, boolean kill) {
        int signalled = 0;
        for (int round = 0; round < 200; round++) {
            List<Long> members = members(pgid);
            if (members.isEmpty()) break;
            for (long pid : members) {
                ProcessHandle.of(pid).ifPresent(h -> {
                    if (kill) h.destroyForcibly();
                    else h.destroy();
                });
            }
            if (round == 0) signalled = members.size();
            if (!kill) break;
            pause();
        }
        return signalled;
    }

    private static void pause() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
