package dev.baton.core.schedule;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.Locale;
import java.util.Map;

/**
 * A five-field cron expression (minute hour day-of-month month day-of-week; {@code *},
 * {@code a-b}, {@code a,b}, {@code * /n}, {@code a-b/n}; day of week 0–7 with 0 and 7 Sunday) or
 * one of {@code @yearly @annually @monthly @weekly @daily @midnight @hourly}, evaluated in a
 * time zone. When both day fields are restricted a day matching either fires (as in cron).
 * The one cron implementation of the server: OJS cron jobs and Baton schedules both use it.
 */
public record CronExpression(
        BitSet minutes, BitSet hours, BitSet days, BitSet months, BitSet weekdays, boolean anyDay, boolean anyWeekday) {
    private static final Map<String, String> SHORTHANDS = Map.of(
            "@yearly",
            "0 0 1 1 *",
            "@annually",
            "0 0 1 1 *",
            "@monthly",
            "0 0 1 * *",
            "@weekly",
            "0 0 * * 0",
            "@daily",
            "0 0 * * *",
            "@midnight",
            "0 0 * * *",
            "@hourly",
            "0 * * * *");

    /** Parses or throws IllegalArgumentException saying which field is wrong. */
    public static CronExpression parse(String text) {
        String expanded = SHORTHANDS.getOrDefault(text.strip().toLowerCase(Locale.ROOT), text.strip());
        String[] f = expanded.split("\\s+");
        if (f.length != 5)
            throw new IllegalArgumentException(
                    "a cron expression has five fields (minute hour day month weekday), got " + f.length);
        BitSet weekdays = field(f[4], 0, 7, "day of week");
        if (weekdays.get(7)) weekdays.set(0);
        return new CronExpression(
                field(f[0], 0, 59, "minute"),
                field(f[1], 0, 23, "hour"),
                field(f[2], 1, 31, "day of month"),
                field(f[3], 1, 12, "month"),
                weekdays,
                f[2].equals("*"),
                f[4].equals("*"));
    }

    private static BitSet field(String text, int min, int max, String name) {
        BitSet set = new BitSet(max + 1);
        for (String part : text.split(",")) {
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                range = part.substring(0, slash);
                step = number(part.substring(slash + 1), name);
                if (step < 1) throw new IllegalArgumentException(name + ": step must be at least 1");
            }
            int lo;
            int hi;
            if (range.equals("*")) {
                lo = min;
                hi = max;
            } else if (range.contains("-")) {
                lo = number(range.substring(0, range.indexOf('-')), name);
                hi = number(range.substring(range.indexOf('-') + 1), name);
            } else {
                lo = number(range, name);
                hi = slash >= 0 ? max : lo;
            }
            if (lo < min || hi > max || lo > hi)
                throw new IllegalArgumentException(name + " must be within " + min + "-" + max + ": " + part);
            for (int v = lo; v <= hi; v += step) set.set(v);
        }
        return set;
    }

    private static int number(String s, String name) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": not a number: '" + s + "'");
        }
    }

    /** The first matching minute strictly after {@code after}, in {@code zone}. */
    public Instant next(Instant after, ZoneId zone) {
        ZonedDateTime t = after.atZone(zone).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        ZonedDateTime limit = t.plusYears(5);
        while (t.isBefore(limit)) {
            if (!months.get(t.getMonthValue())) {
                t = t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1);
            } else if (!dayMatches(t)) {
                t = t.truncatedTo(ChronoUnit.DAYS).plusDays(1);
            } else if (!hours.get(t.getHour())) {
                t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
            } else if (!minutes.get(t.getMinute())) {
                t = t.plusMinutes(1);
            } else {
                return t.toInstant();
            }
        }
        throw new IllegalArgumentException("the cron expression never fires");
    }

    private boolean dayMatches(ZonedDateTime t) {
        boolean day = days.get(t.getDayOfMonth());
        boolean weekday = weekdays.get(t.getDayOfWeek().getValue() % 7);
        if (anyDay && anyWeekday) return true;
        if (anyDay) return weekday;
        if (anyWeekday) return day;
        return day || weekday;
    }

    public static ZoneId zone(String name) {
        try {
            return ZoneId.of(name);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("unknown time zone " + name);
        }
    }
}
