package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.ImageDigest;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobConfigsTest {
    private static String json(String digestByte) {
        return Rows.json(new JobConfig(
                "http://127.0.0.1",
                ProjectUuid.random(),
                ImageDigest.of("sha256:" + digestByte.repeat(64)),
                null,
                List.of("true"),
                null,
                null,
                null,
                null));
    }

    @Test
    void aJobsConfigIsParsedOnceForAllReadsOfItsRow() {
        JobConfigs configs = new JobConfigs(16);
        String json = json("a");
        JobConfig first = configs.config(7, json);
        assertThat(configs.config(7, new String(json))).isSameAs(first);
        assertThat(first).isEqualTo(Rows.config(json));
    }

    @Test
    void distinctJobsKeepTheirOwnParseAndNeverShareAWrongOne() {
        JobConfigs configs = new JobConfigs(16);
        String a = json("a");
        String b = json("b");
        JobConfig ofSeven = configs.config(7, a);
        JobConfig ofEight = configs.config(8, b);
        assertThat(configs.config(7, a)).isSameAs(ofSeven);
        assertThat(configs.config(8, b)).isSameAs(ofEight);
        // Job 23 shares job 7's slot: it evicts it and is answered with its own config.
        assertThat(configs.config(23, b)).isEqualTo(Rows.config(b));
        assertThat(configs.config(7, a)).isEqualTo(ofSeven).isNotSameAs(ofSeven);
        // The same id with other JSON (another database, a reused id) is parsed, never served stale.
        assertThat(configs.config(7, b)).isEqualTo(Rows.config(b));
    }
}
