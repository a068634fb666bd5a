package dev.baton.protocol.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PlanTierTest {
    @Test
    void prioritiesAndLimitsFollowSeed001() {
        assertThat(PlanTier.ENTERPRISE.priority()).isEqualTo(300);
        assertThat(PlanTier.TEAM.priority()).isEqualTo(200);
        assertThat(PlanTier.FREE.priority()).isEqualTo(100);
        assertThat(PlanTier.UNCLAIMED.priority()).isZero();
        assertThat(PlanTier.ENTERPRISE.limit()).isEqualTo(PlanTier.ConcurrencyLimit.UNLIMITED);
        assertThat(PlanTier.TEAM.limit()).isEqualTo(PlanTier.ConcurrencyLimit.UNLIMITED);
        assertThat(PlanTier.FREE.limit()).isEqualTo(PlanTier.ConcurrencyLimit.ONE_PER_ORGANIZATION);
        assertThat(PlanTier.UNCLAIMED.limit()).isEqualTo(PlanTier.ConcurrencyLimit.ONE_PER_SOURCE_IP);
    }

    @Test
    void tierBoundariesOfAStoredPriority() {
        assertThat(PlanTier.ofPriority(0)).isEqualTo(PlanTier.UNCLAIMED);
        assertThat(PlanTier.ofPriority(99)).isEqualTo(PlanTier.UNCLAIMED);
        assertThat(PlanTier.ofPriority(100)).isEqualTo(PlanTier.FREE);
        assertThat(PlanTier.ofPriority(199)).isEqualTo(PlanTier.FREE);
        assertThat(PlanTier.ofPriority(200)).isEqualTo(PlanTier.TEAM);
        assertThat(PlanTier.ofPriority(299)).isEqualTo(PlanTier.TEAM);
        assertThat(PlanTier.ofPriority(300)).isEqualTo(PlanTier.ENTERPRISE);
        for (PlanTier t : PlanTier.values())
            assertThat(PlanTier.ofPriority(t.priority())).isSameAs(t);
    }

    @Test
    void wireNames() {
        for (PlanTier t : PlanTier.values())
            assertThat(PlanTier.parse(t.wireName())).isSameAs(t);
        assertThatThrownBy(() -> PlanTier.parse("gold"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enterprise");
    }
}
