package dev.baton.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.id.ProjectUuid;
import java.io.StringReader;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The policy file and fair share's ranking, on a clock given by hand. */
class PolicyTest {
    static final ProjectUuid A = ProjectUuid.parse("00000000-0000-4000-8000-00000000000a");
    static final ProjectUuid B = ProjectUuid.parse("00000000-0000-4000-8000-00000000000b");
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static SchedulingPolicy parse(String text) throws Exception {
        Properties p = new Properties();
        p.load(new StringReader(text));
        return PolicyFile.parse(p);
    }

    @Test
    void theFileNamesThePolicyAndTheWeights() throws Exception {
        assertThat(parse("")).isInstanceOf(FirstCome.class);
        SchedulingPolicy fair =
                parse("policy = fair-share\nweight." + A + " = 1\nweight." + B + " = 3\ndefault_weight = 2\n");
        assertThat(fair).isEqualTo(new FairShare(Map.of(A, 1.0, B, 3.0), 2.0));
        assertThatThrownBy(() -> parse("policy = round-robin")).hasMessageContaining("first-come or fair-share");
        assertThatThrownBy(() -> parse("policy = fair-share\nweight." + A + " = 0"))
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> parse("policy = fair-share\nweight." + A + " = lots"))
                .hasMessageContaining("must be a number");
        assertThatThrownBy(() -> parse("policy = fair-share\nweight.not-a-uuid = 1"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fairShareRanksByRunnerTimeOverWeightAndCountsRunningJobs() {
        FairShare fair = new FairShare(Map.of(A, 1.0, B, 3.0), 1.0);
        ProjectUsage usage = new ProjectUsage();
        // nothing used yet: the heavier weight first, one job per ask
        assertThat(fair.preferProjects(usage, T0)).containsExactly(B, A);
        assertThat(fair.slotsPerAsk(3)).isEqualTo(1);

        usage.started("b1", B, T0);
        usage.started("b2", B, T0);
        // B has used 20 runner-seconds by T0+10 s, 20/3 > 0: A first
        assertThat(fair.preferProjects(usage, T0.plusSeconds(10))).containsExactly(A, B);
        usage.started("a1", A, T0.plusSeconds(10));
        usage.ended("b1", T0.plusSeconds(10));
        usage.ended("b2", T0.plusSeconds(10));
        // A 8 s / 1 = 8 against B 20 s / 3 ≈ 6.7: B again
        assertThat(usage.seconds(A, T0.plusSeconds(18))).isEqualTo(8.0);
        assertThat(fair.preferProjects(usage, T0.plusSeconds(18))).containsExactly(B, A);
        assertThat(fair.order(usage, T0.plusSeconds(18)).compare(B, A)).isNegative();
    }

    @Test
    void firstComeKeepsTheServersOrder() {
        SchedulingPolicy first = new FirstCome();
        assertThat(first.preferProjects(new ProjectUsage(), T0)).isEmpty();
        assertThat(first.slotsPerAsk(5)).isEqualTo(5);
        assertThat(List.of(B, A).stream()
                        .sorted(first.order(new ProjectUsage(), T0))
                        .toList())
                .containsExactly(B, A);
    }
}
