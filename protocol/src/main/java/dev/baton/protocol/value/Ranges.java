package dev.baton.protocol.value;

/** Range checks with one message shape for every validated value. */
final class Ranges {
    private Ranges() {}

    static long check(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }
}
