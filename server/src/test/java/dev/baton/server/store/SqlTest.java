package dev.baton.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlTest {
    @Test
    void namedParametersBecomePositionalInOrderOfUse() {
        Sql.Parsed p = Sql.rewrite("UPDATE job SET modified = :now, last_heartbeat = :now WHERE uuid = :uuid AND lease = :lease_1");
        assertThat(p.jdbc()).isEqualTo("UPDATE job SET modified = ?, last_heartbeat = ? WHERE uuid = ? AND lease = ?");
        assertThat(List.of(p.positions())).containsExactly("now", "now", "uuid", "lease_1");
    }

    @Test
    void quotedTextAndCastsAreLeftAlone() {
        Sql.Parsed p = Sql.rewrite("SELECT hashtext(current_schema() || ':' || :org), ':x', \":y\", :n::bigint, error_code = 'queue:timeout'");
        assertThat(p.jdbc()).isEqualTo("SELECT hashtext(current_schema() || ':' || ?), ':x', \":y\", ?::bigint, error_code = 'queue:timeout'");
        assertThat(List.of(p.positions())).containsExactly("org", "n");
    }
}
