package dev.baton.server.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The JUnit tags that `scripts/test --fast` leaves out are one fixed set: every {@code @Tag} a test
 * class carries is in the {@code fast} profile's {@code baton.test.externalTags} (pom.xml), so
 * --fast really skips it, and README.md's Development section says what each tag needs.
 */
class TestTagsTest {
    private static final Pattern TAG = Pattern.compile("@Tag\\(\"([^\"]*)\"\\)");
    private static final Pattern EXCLUDED =
            Pattern.compile("<baton\\.test\\.externalTags>([^<]*)</baton\\.test\\.externalTags>");

    @Test
    void everyTagIsExcludedByFastAndDocumented() throws IOException {
        Map<String, Set<String>> used = new TreeMap<>();
        try (Stream<Path> all = Files.walk(Path.of(".."))) {
            for (Path p : all.filter(f -> f.toString().endsWith(".java")
                            && f.toString().contains("/src/test/java/")
                            && !f.toString().contains("/target/"))
                    .toList()) {
                Matcher m = TAG.matcher(Files.readString(p));
                while (m.find())
                    used.computeIfAbsent(m.group(1), t -> new TreeSet<>())
                            .add(p.getFileName().toString());
            }
        }
        Matcher pom = EXCLUDED.matcher(Files.readString(Path.of("..", "pom.xml")));
        assertThat(pom.find())
                .as("pom.xml's fast profile names baton.test.externalTags")
                .isTrue();
        Set<String> excluded = Arrays.stream(pom.group(1).split(","))
                .map(String::strip)
                .collect(Collectors.toCollection(TreeSet::new));
        String readme = Files.readString(Path.of("..", "README.md"));

        assertThat(used).as("tagged test classes").containsKeys("postgres", "nats", "browser");
        assertThat(used.keySet())
                .as("tags used by test classes, all left out by --fast")
                .isSubsetOf(excluded);
        assertThat(excluded)
                .allSatisfy(t -> assertThat(readme)
                        .as("README.md says what tag " + t + " needs")
                        .contains("  - `" + t + "`: "));
    }
}
