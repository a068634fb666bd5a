package dev.baton.protocol.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The state machine checked against a table written out by hand: every (from, to) pair of the
 * seven states is listed, so adding or losing an edge in {@link JobTransition} fails here.
 */
class JobTransitionTest {
    /** Rows are "from", columns "to", in code order; x = allowed. */
    private static final List<String> EXPECTED = List.of(
            //             PEN CLA RUN COM FAI CAN PRO
            /* PENDING   */ ".   x   .   .   x   x   .",
            /* CLAIMED   */ "x   .   x   x   x   x   .",
            /* RUNNING   */ ".   .   .   x   x   x   .",
            /* COMPLETED */ ".   .   .   .   .   .   x",
            /* FAILED    */ "x   .   .   x   .   .   .",
            /* CANCELED  */ ".   .   .   .   .   .   .",
            /* PROCESSED */ ".   .   .   .   .   .   .");

    private static boolean expected(JobStatus from, JobStatus to) {
        String[] cells = EXPECTED.get(from.code()).trim().split("\\s+");
        return cells[to.code()].equals("x");
    }

    @Test
    void everyPairIsAllowedExactlyWhenTheTableSaysSo() {
        int allowed = 0;
        for (JobStatus from : JobStatus.values()) {
            for (JobStatus to : JobStatus.values()) {
                assertThat(JobTransition.allowed(from, to))
                        .as("%s -> %s", from, to)
                        .isEqualTo(expected(from, to));
                if (expected(from, to)) allowed++;
            }
        }
        assertThat(allowed).isEqualTo(14);
    }

    @Test
    void eachNamedTransitionHasItsSourcesAndTarget() {
        assertThat(JobTransition.CLAIM.from()).containsExactly(JobStatus.PENDING);
        assertThat(JobTransition.CLAIM.to()).isEqualTo(JobStatus.CLAIMED);
        assertThat(JobTransition.REQUEUE.from()).containsExactly(JobStatus.CLAIMED);
        assertThat(JobTransition.REQUEUE.to()).isEqualTo(JobStatus.PENDING);
        assertThat(JobTransition.START.from()).containsExactly(JobStatus.CLAIMED);
        assertThat(JobTransition.START.to()).isEqualTo(JobStatus.RUNNING);
        assertThat(JobTransition.COMPLETE.from())
                .containsExactlyInAnyOrder(JobStatus.CLAIMED, JobStatus.RUNNING, JobStatus.FAILED);
        assertThat(JobTransition.COMPLETE.to()).isEqualTo(JobStatus.COMPLETED);
        assertThat(JobTransition.FAIL.from()).containsExactlyInAnyOrder(JobStatus.CLAIMED, JobStatus.RUNNING);
        assertThat(JobTransition.FAIL.to()).isEqualTo(JobStatus.FAILED);
        assertThat(JobTransition.CANCEL.from())
                .containsExactlyInAnyOrder(JobStatus.PENDING, JobStatus.CLAIMED, JobStatus.RUNNING);
        assertThat(JobTransition.CANCEL.to()).isEqualTo(JobStatus.CANCELED);
        assertThat(JobTransition.PROCESS.from()).containsExactly(JobStatus.COMPLETED);
        assertThat(JobTransition.PROCESS.to()).isEqualTo(JobStatus.PROCESSED);
        assertThat(JobTransition.RETRY.from()).containsExactly(JobStatus.FAILED);
        assertThat(JobTransition.RETRY.to()).isEqualTo(JobStatus.PENDING);
        assertThat(JobTransition.QUEUE_TIMEOUT.from()).containsExactly(JobStatus.PENDING);
        assertThat(JobTransition.QUEUE_TIMEOUT.to()).isEqualTo(JobStatus.FAILED);
        assertThat(JobTransition.values()).hasSize(9);
    }

    @Test
    void allowedFromAgreesWithFrom() {
        for (JobTransition t : JobTransition.values()) {
            for (JobStatus s : JobStatus.values()) {
                assertThat(t.allowedFrom(s))
                        .as("%s from %s", t, s)
                        .isEqualTo(t.from().contains(s));
            }
        }
    }

    @Test
    void theNamedTransitionsCoverTheTableAndNothingElse() {
        Set<String> fromTable = new HashSet<>();
        for (JobStatus from : JobStatus.values()) {
            for (JobStatus to : JobStatus.values()) {
                if (expected(from, to)) fromTable.add(from + ">" + to);
            }
        }
        Set<String> fromEnum = new HashSet<>();
        for (JobTransition t : JobTransition.values()) {
            for (JobStatus from : t.from()) fromEnum.add(from + ">" + t.to());
        }
        assertThat(fromEnum).isEqualTo(fromTable);
    }

    @Test
    void terminalStatesHaveNoWayOut() {
        for (JobStatus s : JobStatus.values()) {
            boolean anyOut = false;
            for (JobStatus to : JobStatus.values()) anyOut |= JobTransition.allowed(s, to);
            assertThat(anyOut).as("%s has a way out", s).isEqualTo(!s.terminal());
        }
        assertThat(EnumSet.allOf(JobStatus.class).stream().filter(JobStatus::terminal))
                .containsExactlyInAnyOrder(JobStatus.CANCELED, JobStatus.PROCESSED);
    }
}
