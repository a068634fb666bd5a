package dev.baton.protocol.id;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.message.Wire;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IdsTest {
    @Test
    void leaseIdsAreUnguessableBase64UrlAndNeverPrinted() throws Exception {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            LeaseId lease = LeaseId.random();
            assertThat(lease.value()).hasSize(LeaseId.LENGTH).matches("[A-Za-z0-9_-]{43}");
            assertThat(seen.add(lease.value())).isTrue();
        }
        LeaseId lease = LeaseId.random();
        assertThat(lease.toString()).doesNotContain(lease.value());
        assertThat(Wire.mapper().writeValueAsString(lease)).isEqualTo("\"" + lease.value() + "\"");
        assertThat(Wire.mapper().readValue("\"" + lease.value() + "\"", LeaseId.class))
                .isEqualTo(lease);
        assertThat(lease.matches(new LeaseId(lease.value()))).isTrue();
        assertThat(lease.matches(LeaseId.random())).isFalse();
        assertThat(lease.matches(null)).isFalse();
        for (String bad : new String[] {
            null,
            "",
            lease.value().substring(1),
            lease.value() + "A",
            lease.value().substring(1) + "+",
            lease.value().substring(1) + "="
        }) {
            assertThatThrownBy(() -> new LeaseId(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void uuidsParseWithAClearMessage() {
        UUID u = UUID.randomUUID();
        assertThat(JobUuid.parse(u.toString()).value()).isEqualTo(u);
        assertThat(RunnerUuid.parse(u.toString()).toString()).isEqualTo(u.toString());
        assertThatThrownBy(() -> JobUuid.parse("not-a-uuid"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job uuid must be a UUID");
        assertThatThrownBy(() -> SpecUuid.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void resourceIdsTellUuidsFromSlugs() {
        UUID u = UUID.randomUUID();
        assertThat(ResourceId.of(u.toString()).uuid()).contains(u);
        assertThat(ResourceId.of("bench-box").uuid()).isEmpty();
        assertThatThrownBy(() -> ResourceId.of(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
