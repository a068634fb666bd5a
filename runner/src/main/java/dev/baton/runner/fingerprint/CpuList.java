package dev.baton.runner.fingerprint;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/** A set of CPU numbers in the kernel's list format ({@code 0-3,8,10-11}), as /sys and taskset write it. */
public record CpuList(SortedSet<Integer> cpus) {
    /** More CPUs than any machine Baton runs on has; bounds what a typo can make us read. */
    static final int MAX_CPU = 8191;

    public CpuList {
        if (cpus.isEmpty()) throw new IllegalArgumentException("a cpu list names at least one CPU");
        cpus = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(cpus));
    }

    /** @throws IllegalArgumentException for anything but the kernel's format */
    public static CpuList parse(String text) {
        SortedSet<Integer> cpus = new TreeSet<>();
        for (String part : text.strip().split(",")) {
            String[] range = part.strip().split("-", -1);
            if (range.length > 2) throw new IllegalArgumentException("not a cpu list: '" + text + "'");
            int from = number(range[0], text);
            int to = range.length == 2 ? number(range[1], text) : from;
            if (to < from) throw new IllegalArgumentException("not a cpu list: '" + text + "'");
            for (int c = from; c <= to; c++) cpus.add(c);
        }
        return new CpuList(cpus);
    }

    private static int number(String s, String text) {
        try {
            int n = Integer.parseInt(s.strip());
            if (n < 0 || n > MAX_CPU)
                throw new IllegalArgumentException("CPU " + n + " out of range in '" + text + "'");
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a cpu list: '" + text + "'");
        }
    }

    public int size() {
        return cpus.size();
    }

    /** The shortest kernel-format text: runs of consecutive CPUs as ranges. */
    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        Integer start = null;
        Integer prev = null;
        for (int c : cpus) {
            if (start == null) {
                start = c;
            } else if (c != prev + 1) {
                parts.add(start.equals(prev) ? start.toString() : start + "-" + prev);
                start = c;
            }
            prev = c;
        }
        parts.add(start.equals(prev) ? start.toString() : start + "-" + prev);
        return String.join(",", parts);
    }
}
