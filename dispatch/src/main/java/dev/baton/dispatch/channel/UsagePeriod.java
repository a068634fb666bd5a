package dev.baton.dispatch.channel;

import dev.baton.web.http.ApiException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * The period of a usage readout (issue 41), {@code [from, to)} in UTC. Each end is a date
 * ({@code 2026-11-01}, its midnight) or an instant ({@code 2026-11-01T12:00:00Z}). Without either,
 * the calendar month of {@code now}; with one, a calendar month from it (or up to it).
 */
record UsagePeriod(Instant from, Instant to) {
    static UsagePeriod of(String from, String to, Instant now) {
        Instant start = from == null || from.isBlank() ? null : parse("from", from);
        Instant end = to == null || to.isBlank() ? null : parse("to", to);
        if (start == null && end == null) {
            YearMonth month = YearMonth.from(now.atZone(ZoneOffset.UTC));
            start = month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
            end = month.plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        } else if (end == null) {
            end = start.atZone(ZoneOffset.UTC).plusMonths(1).toInstant();
        } else if (start == null) {
            start = end.atZone(ZoneOffset.UTC).minusMonths(1).toInstant();
        }
        if (!start.isBefore(end)) throw new ApiException(400, "invalid_parameter", "from must be before to", "from");
        return new UsagePeriod(start, end);
    }

    private static Instant parse(String name, String text) {
        try {
            if (text.length() == 10)
                return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new ApiException(
                    400,
                    "invalid_parameter",
                    name + " must be a date such as 2026-11-01 or a UTC time such as 2026-11-01T00:00:00Z",
                    name);
        }
    }
}
