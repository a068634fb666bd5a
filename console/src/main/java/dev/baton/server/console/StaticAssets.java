package dev.baton.server.console;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;

/**
 * The console's static files, all from the server's own jar: its stylesheet and script, and htmx
 * with its SSE extension from their webjars (Maven Central, vendored at build time). They are
 * served under fixed names, the webjar version read from the jar's own pom.properties, so a
 * version bump in the pom needs no template change. Nothing is fetched from a CDN.
 */
final class StaticAssets {
    private record Asset(String resource, String contentType) {}

    private final Map<String, Asset> assets = Map.of(
            "console.css", new Asset("console/console.css", "text/css; charset=utf-8"),
            "console.js", new Asset("console/console.js", "text/javascript; charset=utf-8"),
            "htmx.min.js", new Asset(webjar("htmx.org", "dist/htmx.min.js"), "text/javascript; charset=utf-8"),
            "htmx-sse.js", new Asset(webjar("htmx-ext-sse", "sse.js"), "text/javascript; charset=utf-8"));

    void serve(Context ctx) throws IOException {
        Asset asset = assets.get(ctx.pathParam("file"));
        if (asset == null) {
            ctx.status(404).result("no such file");
            return;
        }
        try (InputStream in = StaticAssets.class.getClassLoader().getResourceAsStream(asset.resource())) {
            if (in == null) throw new IllegalStateException("missing from the jar: " + asset.resource());
            ctx.header("X-Content-Type-Options", "nosniff");
            ctx.header("Cache-Control", "public, max-age=300");
            ctx.contentType(asset.contentType()).result(in.readAllBytes());
        }
    }

    private static String webjar(String artifact, String file) {
        String props = "META-INF/maven/org.webjars.npm/" + artifact + "/pom.properties";
        try (InputStream in = StaticAssets.class.getClassLoader().getResourceAsStream(props)) {
            if (in == null) throw new IllegalStateException("the " + artifact + " webjar is missing from the classpath");
            Properties p = new Properties();
            p.load(in);
            return "META-INF/resources/webjars/" + artifact + "/" + p.getProperty("version") + "/" + file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
