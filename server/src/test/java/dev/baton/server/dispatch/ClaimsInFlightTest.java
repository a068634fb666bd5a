package dev.baton.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ClaimsInFlightTest {
    private final ClaimsInFlight claims = new ClaimsInFlight();

    @Test
    void aClaimEndsWithoutAnotherWhenNobodyAsked() {
        claims.begin(Set.of(1L, 2L));
        assertThat(claims.inFlight(Set.of(1L, 2L))).isTrue();
        assertThat(claims.inFlight(Set.of(1L))).as("another set of specs").isFalse();
        assertThat(claims.end(Set.of(1L, 2L))).isEqualTo(ClaimsInFlight.Again.NO);
        assertThat(claims.inFlight(Set.of(1L, 2L))).isFalse();
    }

    @Test
    void aPumpThatArrivesDuringTheClaimMakesItClaimAgainOnce() {
        claims.begin(Set.of(1L));
        claims.claimAgain(Set.of(1L), false);
        claims.claimAgain(Set.of(1L), false);
        assertThat(claims.end(Set.of(1L))).isEqualTo(ClaimsInFlight.Again.ASKED);
        claims.begin(Set.of(1L));
        assertThat(claims.end(Set.of(1L))).as("the next flight starts with nobody asking").isEqualTo(ClaimsInFlight.Again.NO);
    }

    @Test
    void aJobJustCommittedIsRememberedWhateverCameAfter() {
        claims.begin(Set.of(1L));
        claims.claimAgain(Set.of(1L), true);
        claims.claimAgain(Set.of(1L), false);
        assertThat(claims.end(Set.of(1L))).isEqualTo(ClaimsInFlight.Again.ASKED_FOR_A_JOB_JUST_COMMITTED);
    }

    @Test
    void askingAgainForASetNotInFlightChangesNothing() {
        claims.claimAgain(Set.of(3L), true);
        assertThat(claims.inFlight(Set.of(3L))).isFalse();
    }

    @Test
    void twoClaimsForOneSetAtOnceAreABug() {
        claims.begin(Set.of(1L));
        assertThatThrownBy(() -> claims.begin(Set.of(1L))).isInstanceOf(IllegalStateException.class);
        claims.end(Set.of(1L));
        assertThatThrownBy(() -> claims.end(Set.of(1L))).isInstanceOf(IllegalStateException.class);
    }
}
