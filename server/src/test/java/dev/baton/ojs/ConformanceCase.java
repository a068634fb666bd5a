package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one conformance case (README in the data directory) against a server: setup, steps
 * (delays, waits, parallel pairs, templates from earlier responses), every assertion, teardown.
 * A failed assertion throws {@link AssertionError} naming the step, the JSONPath and why.
 */
final class ConformanceCase {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TEMPLATE =
            Pattern.compile("\\{\\{steps\\.([A-Za-z0-9_-]+)\\.response\\.body((?:\\.[^}]*)?)\\}\\}");

    /** One answered request. */
    record Answer(int status, HttpHeaders headers, String text, JsonNode body, long millis) {}

    final Path file;
    final JsonNode spec;
    private final String baseUrl;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final Map<String, Answer> answers = new HashMap<>();

    /** The server's admin token: every /ojs/v1 request but health carries it (the cases themselves name no credentials). */
    private final String adminToken;

    /** How the case's delays and waits pass: a real sleep, or moving the server's clock (see {@link ShiftedClock}). */
    private final Pause pause;

    /** Lets a case's scripted time pass. */
    @FunctionalInterface
    interface Pause {
        void pass(long millis) throws InterruptedException;
    }

    ConformanceCase(Path file, JsonNode spec, String baseUrl, String adminToken, Pause pause) {
        this.adminToken = adminToken;
        this.pause = pause;
        this.file = file;
        this.spec = spec;
        this.baseUrl = baseUrl;
    }

    static JsonNode read(Path file) throws IOException {
        return JSON.readTree(file.toFile());
    }

    void run() throws Exception {
        for (JsonNode step : spec.path("setup").path("steps")) runStep(step, Set.of());
        try {
            List<JsonNode> steps = new ArrayList<>();
            spec.path("steps").forEach(steps::add);
            Set<String> done = new HashSet<>();
            for (JsonNode step : steps) {
                String id = step.path("id").asText();
                if (done.contains(id)) continue;
                String partner = step.path("parallel_with").asText(null);
                if (partner != null) {
                    JsonNode other = steps.stream()
                            .filter(s -> s.path("id").asText().equals(partner))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError(
                                    "step " + id + " runs in parallel with unknown step " + partner));
                    // A delay inside a parallel pair orders the two concurrent requests, so it stays a real sleep.
                    CompletableFuture<Void> a = CompletableFuture.runAsync(() -> unchecked(step));
                    CompletableFuture<Void> b = CompletableFuture.runAsync(() -> unchecked(other));
                    CompletableFuture.allOf(a, b).join();
                    done.add(partner);
                    check(step);
                    check(other);
                } else {
                    runStep(step, done);
                }
                done.add(id);
            }
        } finally {
            for (JsonNode step : spec.path("teardown").path("steps")) {
                try {
                    runStep(step, Set.of());
                } catch (Exception | AssertionError ignored) {
                    // teardown cleans up; its answers are not what the case checks
                }
            }
        }
    }

    private void unchecked(JsonNode step) {
        try {
            send(step, Thread::sleep);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void runStep(JsonNode step, Set<String> done) throws Exception {
        String action = step.path("action").asText();
        if (action.equals("WAIT")) {
            pause.pass(
                    step.path("duration_ms").asLong(0) + step.path("delay_ms").asLong(0));
            return;
        }
        if (action.equals("ASSERT")) {
            if (step.path("delay_ms").asLong(0) > 0)
                pause.pass(step.path("delay_ms").asLong());
            assertSpecial(step);
            return;
        }
        send(step, pause);
        check(step);
    }

    private void send(JsonNode step, Pause delayWith) throws IOException, InterruptedException {
        long delay = step.path("delay_ms").asLong(0);
        if (delay > 0) delayWith.pass(delay);
        String method = step.path("action").asText();
        String path = resolveText(step.path("path").asText());
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + adminToken);
        boolean contentType = false;
        for (Iterator<Map.Entry<String, JsonNode>> it = step.path("headers").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> h = it.next();
            request.header(h.getKey(), resolveText(h.getValue().asText()));
            contentType |= h.getKey().equalsIgnoreCase("Content-Type");
        }
        HttpRequest.BodyPublisher publisher = HttpRequest.BodyPublishers.noBody();
        if (step.has("body") && !step.get("body").isNull()) {
            JsonNode body = resolve(step.get("body"));
            publisher = HttpRequest.BodyPublishers.ofString(
                    body.isTextual() ? body.asText() : JSON.writeValueAsString(body));
            if (!contentType) request.header("Content-Type", "application/openjobspec+json");
        }
        request.method(method, publisher);
        long start = System.nanoTime();
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        long millis = (System.nanoTime() - start) / 1_000_000;
        JsonNode body = null;
        if (!response.body().isBlank()) {
            try {
                body = JSON.readTree(response.body());
            } catch (IOException e) {
                body = null;
            }
        }
        synchronized (answers) {
            answers.put(
                    step.path("id").asText(),
                    new Answer(response.statusCode(), response.headers(), response.body(), body, millis));
        }
    }

    private Answer answer(String id) {
        synchronized (answers) {
            return answers.get(id);
        }
    }

    private void check(JsonNode step) {
        JsonNode assertions = step.get("assertions");
        if (assertions == null || assertions.isNull()) return;
        assertions = resolve(assertions);
        String id = step.path("id").asText();
        Answer a = answer(id);
        String where = "step " + id + " (" + step.path("action").asText() + " "
                + resolveText(step.path("path").asText()) + ")";
        if (assertions.has("status")) {
            String m = status(assertions.get("status"), a.status());
            if (m != null) fail(where, "status: " + m, a);
        }
        if (assertions.has("status_in")) {
            boolean ok = false;
            for (JsonNode s : assertions.get("status_in")) ok |= s.asInt() == a.status();
            if (!ok) fail(where, "status " + a.status() + " not in " + assertions.get("status_in"), a);
        }
        if (assertions.has("headers")) {
            for (Iterator<Map.Entry<String, JsonNode>> it =
                            assertions.get("headers").fields();
                    it.hasNext(); ) {
                Map.Entry<String, JsonNode> h = it.next();
                String value = a.headers().firstValue(h.getKey()).orElse(null);
                JsonNode expected = h.getValue();
                // A literal media type matches the header's type whatever parameters follow it.
                if (value != null
                        && expected.isTextual()
                        && !expected.asText().contains(";")
                        && h.getKey().equalsIgnoreCase("Content-Type")) {
                    value = value.split(";")[0].strip();
                }
                String m = Matchers.mismatch(expected, value == null ? null : TextNode.valueOf(value));
                if (m != null) fail(where, "header " + h.getKey() + ": " + m, a);
            }
        }
        if (assertions.has("body")) {
            String m = bodyMap(assertions.get("body"), a.body());
            if (m != null) fail(where, m, a);
        }
        for (JsonNode p : assertions.path("body_absent")) {
            if (JsonPath.select(a.body(), p.asText()) != null) fail(where, p.asText() + " should be absent", a);
        }
        for (JsonNode s : assertions.path("body_contains")) {
            if (!a.text().contains(s.asText())) fail(where, "body should contain '" + s.asText() + "'", a);
        }
        JsonNode timing = assertions.get("timing_ms");
        if (timing != null) {
            if (timing.has("less_than") && a.millis() >= timing.get("less_than").asLong())
                fail(where, "took " + a.millis() + " ms, limit " + timing.get("less_than"), a);
            if (timing.has("greater_than")
                    && a.millis() <= timing.get("greater_than").asLong())
                fail(where, "took " + a.millis() + " ms, expected more than " + timing.get("greater_than"), a);
            if (timing.has("approximate")) {
                String m = Matchers.mismatch(
                        TextNode.valueOf("~" + timing.get("approximate").asLong()),
                        JsonNodeFactory.instance.numberNode(a.millis()));
                if (m != null) fail(where, "timing: " + m, a);
            }
        }
    }

    /** A body assertion map; a top-level "$or" holds alternative maps of which one must hold. */
    private static String bodyMap(JsonNode map, JsonNode body) {
        for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            String m;
            if (key.equals("$or")) {
                List<String> why = new ArrayList<>();
                for (JsonNode alternative : e.getValue()) why.add(bodyMap(alternative, body));
                m = why.contains(null) ? null : "no alternative held: " + why;
            } else if (key.equals("$empty")) {
                boolean empty = body == null || (body.isContainerNode() && body.isEmpty());
                m = empty == e.getValue().asBoolean() ? null : "expected the body empty=" + e.getValue();
            } else {
                m = Matchers.mismatch(e.getValue(), JsonPath.select(body, key));
                if (m != null) m = key + ": " + m;
            }
            if (m != null) return m;
        }
        return null;
    }

    private static String status(JsonNode expected, int actual) {
        return Matchers.mismatch(expected, JsonNodeFactory.instance.numberNode(actual));
    }

    /** ASSERT steps: exclusive_claim and equality; anything else is a no-op (README). */
    private void assertSpecial(JsonNode step) {
        JsonNode assertions = resolve(step.path("assertions"));
        String where = "step " + step.path("id").asText() + " (ASSERT)";
        JsonNode claim = assertions.get("exclusive_claim");
        if (claim != null) {
            String job = claim.path("job_id").asText();
            int withJob = 0;
            int empty = 0;
            for (JsonNode fetched : claim.path("fetches")) {
                boolean has = false;
                if (fetched.isArray())
                    for (JsonNode j : fetched) has |= j.path("id").asText().equals(job);
                if (has) withJob++;
                else if (!fetched.isArray() || fetched.isEmpty()) empty++;
            }
            if (claim.path("exactly_one_has_job").asBoolean(false) && withJob != 1)
                fail(where, withJob + " fetches got the job, expected exactly one", null);
            if (claim.path("exactly_one_empty").asBoolean(false) && empty != 1)
                fail(where, empty + " fetches were empty, expected exactly one", null);
        }
        JsonNode equality = assertions.get("equality");
        if (equality != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = equality.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                Matcher m = Pattern.compile("^\\$\\.steps\\.([A-Za-z0-9_-]+)\\.response\\.body(.*)$")
                        .matcher(e.getKey());
                if (!m.matches()) continue;
                Answer a = answer(m.group(1));
                JsonNode left = a == null ? null : JsonPath.select(a.body(), "$" + m.group(2));
                if (left == null || !left.equals(e.getValue()))
                    fail(where, e.getKey() + " differs from " + Matchers.show(e.getValue()), a);
            }
        }
    }

    private void fail(String where, String why, Answer a) {
        String got = a == null
                ? ""
                : "\n  answer: " + a.status() + " "
                        + (a.text().length() > 800 ? a.text().substring(0, 800) + "…" : a.text());
        throw new AssertionError(spec.path("test_id").asText() + " " + where + ": " + why + got);
    }

    // ---- templates ----------------------------------------------------------------------------

    /** A copy of {@code node} with templates replaced in keys and values; a whole-string template keeps its JSON type. */
    private JsonNode resolve(JsonNode node) {
        if (node.isTextual()) {
            String s = node.asText();
            Matcher m = TEMPLATE.matcher(s);
            if (m.matches()) {
                JsonNode v = lookup(m.group(1), m.group(2));
                return v == null ? node : v;
            }
            return TextNode.valueOf(resolveText(s));
        }
        if (node.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            node.forEach(e -> out.add(resolve(e)));
            return out;
        }
        if (node.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            node.fields().forEachRemaining(e -> out.set(resolveText(e.getKey()), resolve(e.getValue())));
            return out;
        }
        return node;
    }

    private String resolveText(String s) {
        Matcher m = TEMPLATE.matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            JsonNode v = lookup(m.group(1), m.group(2));
            String replacement = v == null ? m.group() : v.isValueNode() ? v.asText() : v.toString();
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    private JsonNode lookup(String stepId, String dotted) {
        Answer a = answer(stepId);
        if (a == null || a.body() == null) return null;
        return JsonPath.select(a.body(), "$" + dotted);
    }
}
