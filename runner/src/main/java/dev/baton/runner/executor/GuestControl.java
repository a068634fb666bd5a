package dev.baton.runner.executor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * What the guest reported on its control port ({@link GuestJob} describes the records). The guest
 * is not trusted: the file is read up to a bound, every record is checked, and anything malformed
 * ends the parse; files are capped again here (size, count, total) as {@link FileCollector} does.
 *
 * @param exitCode the workload's exit status, or empty when the guest never said (killed, crashed)
 */
record GuestControl(
        OptionalInt exitCode, long oomKills, Map<String, String> files, List<String> refused, String error) {
    private static final int MAX_LINE = 200;

    static GuestControl read(Path control, List<String> requested, OutputLimits limits) {
        List<String> names = requested == null ? List.of() : requested;
        List<String> refused = new ArrayList<>();
        Map<String, String> files = new LinkedHashMap<>();
        for (String name : names) {
            if (name == null || name.isEmpty() || name.indexOf('\0') >= 0)
                refused.add("'" + name + "': not a valid path");
            else if (FileCollector.hasParentSegment(name)) refused.add(name + ": escapes its directory (..)");
        }
        byte[] data;
        try {
            long cap = (long) limits.totalFileBytes()
                    + (long) names.size() * (limits.fileBytes() + MAX_LINE)
                    + 4 * MAX_LINE;
            data = Files.exists(control) ? readAtMost(control, cap) : new byte[0];
        } catch (IOException e) {
            return new GuestControl(
                    OptionalInt.empty(), 0, files, refused, "cannot read the control channel: " + e.getMessage());
        }
        OptionalInt exit = OptionalInt.empty();
        long oom = 0;
        String error = null;
        long total = 0;
        int pos = 0;
        while (pos < data.length) {
            int nl = indexOf(data, (byte) '\n', pos, Math.min(data.length, pos + MAX_LINE));
            if (nl < 0) break;
            String[] f = new String(data, pos, nl - pos, StandardCharsets.UTF_8).split(" ");
            pos = nl + 1;
            try {
                switch (f[0]) {
                    case "booted" -> {}
                    case "exit" -> exit = OptionalInt.of(Integer.parseInt(f[1]));
                    case "oom" -> oom = Long.parseLong(f[1]);
                    case "error" -> error = String.join(" ", Arrays.asList(f).subList(1, f.length));
                    case "notregular" -> refused.add(names.get(Integer.parseInt(f[1])) + ": not a regular file");
                    case "file" -> {
                        String name = names.get(Integer.parseInt(f[1]));
                        long size = Long.parseLong(f[2]);
                        int sent = (int) Math.min(size, limits.fileBytes());
                        if (sent < 0 || pos + sent > data.length)
                            return new GuestControl(exit, oom, files, refused, "control channel cut short");
                        if (files.size() >= limits.files()) {
                            refused.add(name + ": more than " + limits.files() + " files requested");
                        } else {
                            int keep = (int) Math.min(sent, Math.max(0, limits.totalFileBytes() - total));
                            String text = new String(data, pos, keep, StandardCharsets.UTF_8);
                            total += keep;
                            files.put(name, size > keep ? text + BoundedCapture.MARKER.formatted(size - keep) : text);
                        }
                        pos += sent;
                    }
                    default -> {
                        return new GuestControl(exit, oom, files, refused, "unknown control record " + f[0]);
                    }
                }
            } catch (RuntimeException e) {
                return new GuestControl(exit, oom, files, refused, "malformed control record");
            }
        }
        return new GuestControl(exit, oom, files, refused, error);
    }

    private static byte[] readAtMost(Path p, long cap) throws IOException {
        try (var in = Files.newInputStream(p)) {
            return in.readNBytes((int) Math.min(cap, Integer.MAX_VALUE - 8));
        }
    }

    private static int indexOf(byte[] data, byte b, int from, int to) {
        for (int i = from; i < to; i++) if (data[i] == b) return i;
        return -1;
    }
}
