package dev.baton.server.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md names only classes and methods that exist: a newcomer follows its names
 * into the code, so a name that was renamed or never written is a wrong turn. Every `Name`,
 * `folder/Name`, `module/.../Name` and `Name.method` the page quotes is looked up in the sources
 * of every module.
 */
class ArchitectureDocTest {
    /** A class (`Store`), a class in a folder (`alerts/Judging`, `store/.../JdbcClaims`), or a method (`Store.createRun`). */
    private static final Pattern CLASS = Pattern.compile(
            "`(?:([a-z][a-z.]*(?:/\\.\\.\\.)?(?:/[a-z]+)*)/)?([A-Z][A-Za-z0-9]+)(?:\\.([a-z][A-Za-z0-9]*))?`");
    /** A part of the store reached as a method (`alerts()`). */
    private static final Pattern STORE_PART = Pattern.compile("`([a-z][A-Za-z]*)\\(\\)`");

    private static String doc;
    private static List<Path> sources;

    @BeforeAll
    static void read() throws IOException {
        doc = Files.readString(Path.of("..", "docs", "architecture.md"));
        try (Stream<Path> all = Files.walk(Path.of(".."))) {
            sources = all.filter(p -> p.toString().endsWith(".java")
                            && p.toString().contains("/src/")
                            && !p.toString().contains("/target/"))
                    .toList();
        }
    }

    @Test
    void everyClassAndMethodTheDocNamesExists() throws IOException {
        List<String> missing = new ArrayList<>();
        Matcher m = CLASS.matcher(doc);
        int names = 0;
        while (m.find()) {
            names++;
            String folder = m.group(1);
            String type = m.group(2);
            String method = m.group(3);
            List<Path> files = sources.stream()
                    .filter(p -> p.getFileName().toString().equals(type + ".java"))
                    .toList();
            if (folder != null) {
                String parent = folder.substring(folder.lastIndexOf('/') + 1);
                if (!parent.equals("...") && !folder.endsWith("/...")) {
                    files = files.stream()
                            .filter(p -> p.getParent().getFileName().toString().equals(parent))
                            .toList();
                }
            }
            if (files.isEmpty()) {
                missing.add(m.group());
                continue;
            }
            if (method != null && !anyDeclares(files, method)) missing.add(m.group() + " (no method " + method + ")");
        }
        assertThat(names).as("the doc names classes").isGreaterThan(50);
        assertThat(missing)
                .as("names in docs/architecture.md that the code does not have")
                .isEmpty();
    }

    @Test
    void everyStorePartTheDocNamesIsAMethodOfTheStore() throws IOException {
        List<Path> store = sources.stream()
                .filter(p -> p.toString().endsWith("/dev/baton/store/Store.java"))
                .toList();
        assertThat(store).hasSize(1);
        String text = Files.readString(store.get(0));
        Matcher m = STORE_PART.matcher(doc);
        List<String> missing = new ArrayList<>();
        while (m.find()) {
            if (!text.contains(" " + m.group(1) + "();")) missing.add(m.group());
        }
        assertThat(missing).isEmpty();
    }

    /**
     * The doc says the router stands beside the runner, both on `channel-client`: no main class of
     * the router imports the runner (its tests may, to run real runners behind it).
     */
    @Test
    void theRouterUsesTheChannelClientNotTheRunner() throws IOException {
        List<String> importing = new ArrayList<>();
        for (Path p : sources) {
            String path = p.toString().replace('\\', '/');
            if (path.contains("/router/src/main/") && Files.readString(p).contains("dev.baton.runner."))
                importing.add(path);
        }
        assertThat(sources).anyMatch(p -> p.toString().replace('\\', '/').contains("/channel-client/src/main/"));
        assertThat(importing).as("router classes that use the runner").isEmpty();
    }

    private static boolean anyDeclares(List<Path> files, String method) throws IOException {
        for (Path f : files) {
            if (Pattern.compile("\\b" + method + "\\(")
                    .matcher(Files.readString(f))
                    .find()) return true;
        }
        return false;
    }
}
