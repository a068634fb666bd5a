package dev.baton.server.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every issue number a source file cites is explained in docs/references.md, so the citation can be followed. */
class ReferencesDocTest {
    private static final Pattern ISSUE = Pattern.compile("\\bissue (\\d+)\\b");

    @Test
    void everyCitedIssueIsListed() throws IOException {
        Set<String> cited = new TreeSet<>();
        try (Stream<Path> all = Files.walk(Path.of(".."))) {
            for (Path p : all.filter(
                            f -> f.toString().endsWith(".java") && !f.toString().contains("/target/"))
                    .toList()) {
                Matcher m = ISSUE.matcher(Files.readString(p));
                while (m.find()) cited.add(m.group(1));
            }
        }
        String doc = Files.readString(Path.of("..", "docs", "references.md"));
        assertThat(cited).as("issues cited in the code").isNotEmpty();
        assertThat(cited)
                .allSatisfy(n -> assertThat(doc)
                        .as("docs/references.md lists issue " + n)
                        .contains("\n| " + n + " |"));
    }
}
