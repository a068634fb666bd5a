package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The console as a browser without JavaScript uses it, for the console's tests: pages read with the
 * session cookie, forms posted URL-encoded, and the sign-in with its pre-session CSRF cookie.
 * Redirects are not followed, so a test sees the 303 a form answers with.
 */
final class ConsoleBrowser implements AutoCloseable {
    private final HttpClient http =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private final Function<String, String> url;

    /** @param url the absolute URL of a path on the server under test */
    ConsoleBrowser(Function<String, String> url) {
        this.url = url;
    }

    HttpResponse<String> get(String path, String cookie) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(url.apply(path)))
                        .header("Cookie", cookie)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** {@code fields} are name, value, name, value… */
    HttpResponse<String> post(String path, String cookie, String... fields) throws Exception {
        List<String> pairs = new ArrayList<>();
        for (int i = 0; i < fields.length; i += 2) {
            pairs.add(URLEncoder.encode(fields[i], StandardCharsets.UTF_8) + "="
                    + URLEncoder.encode(fields[i + 1], StandardCharsets.UTF_8));
        }
        return http.send(
                HttpRequest.newBuilder(URI.create(url.apply(path)))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Cookie", cookie)
                        .POST(HttpRequest.BodyPublishers.ofString(String.join("&", pairs)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Signs in with {@code token} through the sign-in form; returns the session cookie ({@code name=value}). */
    String signIn(String token) throws Exception {
        var page = http.send(
                HttpRequest.newBuilder(URI.create(url.apply("/console/sign-in")))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        String pre = page.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(Csrf.PRE_SESSION_COOKIE + "="))
                .findFirst()
                .orElseThrow()
                .split(";")[0];
        var r = post("/console/sign-in", pre, "_csrf", ConsoleHttpTest.csrfOf(page.body()), "token", token);
        assertThat(r.statusCode()).isEqualTo(303);
        return r.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(ConsoleSignIn.COOKIE + "="))
                .findFirst()
                .orElseThrow()
                .split(";")[0];
    }

    @Override
    public void close() {
        http.shutdownNow();
    }
}
