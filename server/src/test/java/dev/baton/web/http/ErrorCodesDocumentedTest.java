package dev.baton.web.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every error code the API can answer appears in docs/api.md, so clients can rely on the list. */
class ErrorCodesDocumentedTest {
    // Whitespace-tolerant: the formatter may break a call after its opening parenthesis or comma.
    private static final Pattern CODE = Pattern.compile(
            "(?:new ApiException\\(\\s*\\d+,\\s*|new ApiError\\(\\s*|ApiException\\.(?:badRequest|notFound|conflict)\\(\\s*)\"([a-z_]+)\"");

    @Test
    void everyCodeInTheSourcesIsInTheDocs() throws IOException {
        Set<String> codes = new TreeSet<>();
        // Every server module's sources: the tests run in server/, beside the other modules.
        List<Path> sources;
        try (Stream<Path> modules = Files.list(Path.of(".."))) {
            sources = modules.map(m -> m.resolve(Path.of("src", "main", "java", "dev", "baton", "server")))
                    .filter(Files::isDirectory)
                    .toList();
        }
        assertThat(sources).as("server modules found").hasSizeGreaterThan(5);
        for (Path root : sources) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    Matcher m = CODE.matcher(Files.readString(file));
                    // a code built as prefix + status ("http_" + 418) is documented as http_<status>
                    while (m.find()) codes.add(m.group(1).endsWith("_") ? m.group(1) + "<status>" : m.group(1));
                }
            }
        }
        // the helpers that fix their own code
        codes.addAll(Set.of("invalid_field", "missing_field", "payload_too_large"));
        assertThat(codes).contains("unauthorized", "spec_required", "slug_taken", "route_not_found");

        String doc = Files.readString(Path.of("..", "docs", "api.md"));
        for (String code : codes) {
            assertThat(doc).as("docs/api.md lists " + code).contains("`" + code + "`");
        }
    }
}
