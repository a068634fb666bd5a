package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {
    @Test
    void defaultsAreTheDocumentedRun() {
        BenchOptions o = BenchOptions.parse();
        assertThat(o.database()).isEqualTo(BenchDatabase.Kind.SQLITE);
        assertThat(o.runners()).containsExactly(1, 10, 100);
        assertThat(o.connections()).isEqualTo(1000);
        assertThat(o.samples()).isEqualTo(1000);
    }

    @Test
    void flagsOverrideAndSmokeShrinks() {
        BenchOptions o = BenchOptions.parse(
                "--database", "postgresql", "--runners", "2,4", "--slots", "3", "--connections", "10000", "--smoke");
        assertThat(o.database()).isEqualTo(BenchDatabase.Kind.POSTGRESQL);
        assertThat(o.runners()).isEqualTo(List.of(2, 4));
        assertThat(o.slots()).isEqualTo(3);
        assertThat(o.connections()).isEqualTo(10000);
        assertThat(o.jobs()).isEqualTo(30);
    }

    @Test
    void aPgUrlWithItsOwnQueryKeepsItWhenTheSchemaIsAdded() {
        assertThat(BenchDatabase.withQuery("postgresql://127.0.0.1:5432/baton_bench", "user=postgres&currentSchema=s"))
                .isEqualTo("postgresql://127.0.0.1:5432/baton_bench?user=postgres&currentSchema=s");
        assertThat(BenchDatabase.withQuery(
                        "postgresql://127.0.0.1:5432/baton_bench?prepareThreshold=1", "user=postgres&currentSchema=s"))
                .isEqualTo("postgresql://127.0.0.1:5432/baton_bench?prepareThreshold=1&user=postgres&currentSchema=s");
        assertThat(BenchDatabase.withQuery("postgresql://h/db?", "user=u")).isEqualTo("postgresql://h/db?user=u");
    }

    @Test
    void badFlagsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> BenchOptions.parse("--database", "mysql"))
                .hasMessageContaining("sqlite or postgresql");
        assertThatThrownBy(() -> BenchOptions.parse("--jobs", "0"))
                .hasMessageContaining("--jobs must be a positive integer");
        assertThatThrownBy(() -> BenchOptions.parse("--connections", "10001")).hasMessageContaining("at most 10000");
        assertThatThrownBy(() -> BenchOptions.parse("--nope", "1")).hasMessageContaining("unknown flag --nope");
        assertThatThrownBy(() -> BenchOptions.parse("--slots")).hasMessageContaining("missing value");
    }
}
