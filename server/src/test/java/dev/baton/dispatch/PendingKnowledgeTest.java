package dev.baton.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.testing.MutableClock;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a node knows of pending jobs (docs/decisions/0020-pending-knowledge.md): when an answer "none" may be trusted. */
class PendingKnowledgeTest {
    final MutableClock clock = MutableClock.startingNow();
    final PendingKnowledge knowledge = new PendingKnowledge(clock);
    final Set<Long> specs = Set.of(1L, 2L);

    @Test
    void nothingIsKnownBeforeTheStoreWasAsked() {
        assertThat(knowledge.knownEmpty(specs)).isFalse();
    }

    @Test
    void anAnswerHoldsUntilAJobOfOneOfItsSpecsIsHeardOf() {
        knowledge.nothingPending(specs, knowledge.ticket());
        assertThat(knowledge.knownEmpty(specs)).isTrue();
        knowledge.pending(3L); // another spec
        assertThat(knowledge.knownEmpty(specs)).isTrue();
        knowledge.pending(2L);
        assertThat(knowledge.knownEmpty(specs)).isFalse();
    }

    /** A job committed after the ticket was taken may be missing from the read: the answer must not count. */
    @Test
    void aJobHeardOfWhileTheReadRanVoidsItsAnswer() {
        PendingKnowledge.Ticket ticket = knowledge.ticket();
        knowledge.pending(1L); // committed and heard of while the store was being asked
        knowledge.nothingPending(specs, ticket);
        assertThat(knowledge.knownEmpty(specs)).isFalse();
    }

    /** A job heard of before the ticket was committed before the read began, so the read saw it. */
    @Test
    void aJobHeardOfBeforeTheTicketDoesNotVoidTheAnswer() {
        knowledge.pending(1L);
        knowledge.nothingPending(specs, knowledge.ticket());
        assertThat(knowledge.knownEmpty(specs)).isTrue();
    }

    @Test
    void anOlderAnswerDoesNotReplaceANewerOne() {
        PendingKnowledge.Ticket old = knowledge.ticket();
        knowledge.pending(1L);
        knowledge.nothingPending(specs, knowledge.ticket());
        knowledge.nothingPending(specs, old); // a slower read, begun before the job was heard of
        assertThat(knowledge.knownEmpty(specs)).isTrue();
    }

    @Test
    void forgettingVoidsEveryAnswerIncludingOneRecordedAfterFromAnEarlierRead() {
        PendingKnowledge.Ticket before = knowledge.ticket();
        knowledge.nothingPending(specs, before);
        knowledge.forget();
        assertThat(knowledge.knownEmpty(specs)).isFalse();
        knowledge.nothingPending(specs, before); // a read begun before the forget, stored after it
        assertThat(knowledge.knownEmpty(specs)).isFalse();
        knowledge.nothingPending(specs, knowledge.ticket());
        assertThat(knowledge.knownEmpty(specs)).isTrue();
    }

    @Test
    void anAnswerIsTrustedForAtMostMaxAgeOnTheNodesClock() {
        knowledge.nothingPending(specs, knowledge.ticket());
        clock.advance(PendingKnowledge.MAX_AGE.minusMillis(1));
        assertThat(knowledge.knownEmpty(specs)).isTrue();
        clock.advance(Duration.ofMillis(1));
        assertThat(knowledge.knownEmpty(specs)).isFalse();
    }

    @Test
    void anAnswerIsNotTrustedWhenTheClockWentBack() {
        knowledge.nothingPending(specs, knowledge.ticket());
        clock.advance(Duration.ofSeconds(-1));
        assertThat(knowledge.knownEmpty(specs)).isFalse();
    }

    @Test
    void answersAreKeptPerSetOfSpecs() {
        knowledge.nothingPending(specs, knowledge.ticket());
        assertThat(knowledge.knownEmpty(Set.of(1L))).isFalse();
        assertThat(knowledge.knownEmpty(Set.of(1L, 2L, 3L))).isFalse();
    }
}
