package dev.baton.protocol.message;

import java.time.Instant;
import java.time.LocalDate;
import java.time.Year;

/**
 * The common shape of an instant on the wire, {@code 2026-11-24T12:00:00.123456Z}, written and
 * read without {@link java.time.format.DateTimeFormatter} (issue 13: its parse and format were a
 * quarter of decoding a {@code job} message and a sixth of encoding one).
 *
 * <p>Both directions only ever answer for what they are sure of and say "not mine" otherwise, so
 * the caller falls back to the standard formatter: {@link #format} matches {@code
 * DateTimeFormatter.ISO_INSTANT} exactly for years 0000 to 9999 (seconds, then 0, 3, 6 or 9
 * fraction digits, then {@code Z}); {@link #parse} takes exactly that shape with 0 to 9 fraction
 * digits, an upper-case {@code T} and {@code Z}, and a valid date and time of day. Anything else
 * (an offset, lower case, a leap second, 24:00, a signed or five-digit year, whitespace) is left
 * to the standard parser, which accepts or refuses it as before.
 */
final class InstantText {
    /** The longest text {@link #format} writes: {@code 9999-12-31T23:59:59.123456789Z}. */
    static final int MAX_LENGTH = 30;

    private static final long FIRST_SECOND = -62_167_219_200L; // 0000-01-01T00:00:00Z
    private static final long LAST_SECOND = 253_402_300_799L; // 9999-12-31T23:59:59Z
    private static final int SECONDS_PER_DAY = 86_400;

    private InstantText() {}

    /**
     * Writes {@code instant} into {@code out} (at least {@link #MAX_LENGTH} long) as {@code
     * ISO_INSTANT} would; returns the length, or -1 outside years 0000 to 9999.
     */
    static int format(Instant instant, char[] out) {
        long seconds = instant.getEpochSecond();
        if (seconds < FIRST_SECOND || seconds > LAST_SECOND) return -1;
        LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY));
        int secondOfDay = Math.floorMod(seconds, SECONDS_PER_DAY);
        digits(out, 0, date.getYear(), 4);
        out[4] = '-';
        digits(out, 5, date.getMonthValue(), 2);
        out[7] = '-';
        digits(out, 8, date.getDayOfMonth(), 2);
        out[10] = 'T';
        digits(out, 11, secondOfDay / 3600, 2);
        out[13] = ':';
        digits(out, 14, secondOfDay / 60 % 60, 2);
        out[16] = ':';
        digits(out, 17, secondOfDay % 60, 2);
        int at = 19;
        int nanos = instant.getNano();
        if (nanos > 0) {
            // ISO_INSTANT prints the fraction in groups of three: as many as it takes, no more.
            out[at++] = '.';
            if (nanos % 1_000_000 == 0) {
                digits(out, at, nanos / 1_000_000, 3);
                at += 3;
            } else if (nanos % 1_000 == 0) {
                digits(out, at, nanos / 1_000, 6);
                at += 6;
            } else {
                digits(out, at, nanos, 9);
                at += 9;
            }
        }
        out[at++] = 'Z';
        return at;
    }

    /**
     * The instant {@code text[offset, offset + length)} stands for if it has the common shape,
     * else null (not necessarily invalid: the caller asks the standard parser).
     */
    static Instant parse(char[] text, int offset, int length) {
        if (length < 20 || length > MAX_LENGTH || text[offset + length - 1] != 'Z') return null;
        int year = number(text, offset, 4);
        int month = number(text, offset + 5, 2);
        int day = number(text, offset + 8, 2);
        int hour = number(text, offset + 11, 2);
        int minute = number(text, offset + 14, 2);
        int second = number(text, offset + 17, 2);
        if ((year | month | day | hour | minute | second) < 0) return null;
        if (text[offset + 4] != '-'
                || text[offset + 7] != '-'
                || text[offset + 10] != 'T'
                || text[offset + 13] != ':'
                || text[offset + 16] != ':') return null;
        if (month < 1
                || month > 12
                || day < 1
                || day > lengthOfMonth(year, month)
                || hour > 23
                || minute > 59
                || second > 59) return null;
        int nanos = 0;
        if (length > 20) {
            int fractionDigits = length - 21; // between the '.' at 19 and the 'Z'
            if (text[offset + 19] != '.' || fractionDigits < 1) return null;
            int fraction = number(text, offset + 20, fractionDigits);
            if (fraction < 0) return null;
            nanos = fraction * POWERS_OF_TEN[9 - fractionDigits];
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(epochDay * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second, nanos);
    }

    private static final int[] POWERS_OF_TEN = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000};

    private static int lengthOfMonth(int year, int month) {
        return switch (month) {
            case 2 -> Year.isLeap(year) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    /** The value of {@code count} (at most 9) ASCII digits, or -1 if one of them is not a digit. */
    private static int number(char[] text, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            int d = text[i] - '0';
            if (d < 0 || d > 9) return -1;
            value = value * 10 + d;
        }
        return value;
    }

    private static void digits(char[] out, int from, int value, int count) {
        for (int i = from + count - 1; i >= from; i--) {
            out[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }
}
