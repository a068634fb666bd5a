package dev.baton.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** The server's one cron evaluator (OJS cron jobs and /v0 schedules). */
class CronExpressionTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static Instant next(String cron, String after, ZoneId zone) {
        return CronExpression.parse(cron).next(Instant.parse(after), zone);
    }

    @Test
    void localTimeStaysLocalAcrossDaylightSavingChanges() {
        // 03:00 in Berlin: 02:00 UTC in winter, 01:00 UTC from 29 March 2026 (CEST).
        assertThat(next("0 3 * * *", "2026-03-28T02:00:00Z", BERLIN)).isEqualTo(Instant.parse("2026-03-29T01:00:00Z"));
        assertThat(next("0 3 * * *", "2026-03-29T01:00:00Z", BERLIN)).isEqualTo(Instant.parse("2026-03-30T01:00:00Z"));
        // 02:30 does not exist on 29 March in Berlin: that day has no such occurrence.
        assertThat(next("30 2 * * *", "2026-03-28T02:00:00Z", BERLIN)).isEqualTo(Instant.parse("2026-03-30T00:30:00Z"));
    }

    @Test
    void fieldsStepsListsRangesAndShorthands() {
        assertThat(next("*/15 * * * *", "2026-01-01T00:07:00Z", ZoneId.of("UTC")))
                .isEqualTo(Instant.parse("2026-01-01T00:15:00Z"));
        assertThat(next("0 9-17/4 * * 1-5", "2026-01-02T13:00:00Z", ZoneId.of("UTC")))
                .isEqualTo(Instant.parse("2026-01-02T17:00:00Z"));
        assertThat(next("0 9-17/4 * * 1-5", "2026-01-02T17:00:00Z", ZoneId.of("UTC")))
                .as("Friday 17:00, then Monday 09:00")
                .isEqualTo(Instant.parse("2026-01-05T09:00:00Z"));
        assertThat(next("@monthly", "2026-01-15T00:00:00Z", ZoneId.of("UTC")))
                .isEqualTo(Instant.parse("2026-02-01T00:00:00Z"));
        // Both day fields restricted: either matches (the 13th, or any Friday).
        assertThat(next("0 0 13 * 5", "2026-01-03T00:00:00Z", ZoneId.of("UTC")))
                .isEqualTo(Instant.parse("2026-01-09T00:00:00Z"));
    }

    @Test
    void badExpressionsSayWhichField() {
        assertThatThrownBy(() -> CronExpression.parse("61 * * * *")).hasMessageContaining("minute");
        assertThatThrownBy(() -> CronExpression.parse("* * *")).hasMessageContaining("five fields");
        assertThatThrownBy(() -> CronExpression.parse("0 0 31 2 *")
                        .next(Instant.parse("2026-01-01T00:00:00Z"), ZoneId.of("UTC")))
                .hasMessageContaining("never fires");
        assertThatThrownBy(() -> CronExpression.zone("Mars/Olympus")).hasMessageContaining("time zone");
    }
}
