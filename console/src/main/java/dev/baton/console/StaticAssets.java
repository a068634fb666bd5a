package dev.baton.console;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;

/**
 * The console's static files, all from the server's own jar: its stylesheet, scripts and icon, htmx
 * with its SSE extension and uPlot (the metrics plot) from their webjars (Maven Central), and anser
 * kept in the repository at a pinned version (docs/decisions/0028-console-log-viewer.md). They are
 * served under fixed names, the webjar version read from the jar's own pom.properties, so a
 * version bump in the pom needs no template change. Nothing is fetched from a CDN.
 */
final class StaticAssets {
    /** A file of the jar, served as it is or, for a CommonJS library, wrapped so that it sets a browser global. */
    private record Asset(String resource, String contentType, String commonJsGlobal) {
        Asset(String resource, String contentType) {
            this(resource, contentType, null);
        }
    }

    private final Map<String, Asset> assets = Map.ofEntries(
            Map.entry("console.css", new Asset("console/console.css", "text/css; charset=utf-8")),
            Map.entry("console.js", new Asset("console/console.js", "text/javascript; charset=utf-8")),
            Map.entry(
                    "htmx.min.js", new Asset(webjar("htmx.org", "dist/htmx.min.js"), "text/javascript; charset=utf-8")),
            Map.entry("htmx-sse.js", new Asset(webjar("htmx-ext-sse", "sse.js"), "text/javascript; charset=utf-8")),
            Map.entry("log-viewer.js", new Asset("console/log-viewer.js", "text/javascript; charset=utf-8")),
            Map.entry("favicon.svg", new Asset("console/favicon.svg", "image/svg+xml")),
            // anser (ANSI escapes to styled fragments), kept in the repository at a pinned version
            // (scripts/update-web-assets)
            Map.entry(
                    "anser.js",
                    new Asset("console/vendor/anser/lib/index.js", "text/javascript; charset=utf-8", "Anser")),
            // uPlot draws the metrics history; its IIFE build sets window.uPlot
            Map.entry(
                    "uplot.min.js",
                    new Asset(webjar("uplot", "dist/uPlot.iife.min.js"), "text/javascript; charset=utf-8")),
            Map.entry("uplot.min.css", new Asset(webjar("uplot", "dist/uPlot.min.css"), "text/css; charset=utf-8")),
            Map.entry("metrics-plot.js", new Asset("console/metrics-plot.js", "text/javascript; charset=utf-8")));

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
            byte[] body = in.readAllBytes();
            if (asset.commonJsGlobal() != null) body = commonJs(body, asset.commonJsGlobal());
            ctx.contentType(asset.contentType()).result(body);
        }
    }

    /** Runs a CommonJS file (it assigns {@code module.exports}) in its own scope and exposes what it exports as {@code window.name}. */
    private static byte[] commonJs(byte[] source, String name) {
        String wrapped = "(function () {\nvar module = { exports: {} }; var exports = module.exports;\n"
                + new String(source, java.nio.charset.StandardCharsets.UTF_8) + "\nwindow." + name
                + " = module.exports;\n})();\n";
        return wrapped.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String webjar(String artifact, String file) {
        String props = "META-INF/maven/org.webjars.npm/" + artifact + "/pom.properties";
        try (InputStream in = StaticAssets.class.getClassLoader().getResourceAsStream(props)) {
            if (in == null)
                throw new IllegalStateException("the " + artifact + " webjar is missing from the classpath");
            Properties p = new Properties();
            p.load(in);
            return "META-INF/resources/webjars/" + artifact + "/" + p.getProperty("version") + "/" + file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
