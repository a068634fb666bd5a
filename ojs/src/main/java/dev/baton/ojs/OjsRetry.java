package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * An OJS retry policy: how many attempts a job gets, the delay before each retry (exponential,
 * linear or constant from {@code initial_interval}, capped at {@code max_interval}, optionally
 * jittered by ±50%), which errors are never retried, and what happens on exhaustion.
 */
record OjsRetry(
        int maxAttempts,
        Duration initial,
        double coefficient,
        String strategy,
        Duration maxInterval,
        boolean jitter,
        List<String> nonRetryable,
        String onExhaustion) {
    static final OjsRetry DEFAULT = new OjsRetry(
            3, Duration.ofSeconds(1), 2.0, "exponential", Duration.ofMinutes(5), true, List.of(), "discard");

    /** Reads {@code options.retry}; a value outside its bounds is a 422 naming the field. */
    static OjsRetry parse(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) return DEFAULT;
        if (!node.isObject()) throw OjsException.invalid("options.retry must be an object");
        int max = DEFAULT.maxAttempts;
        if (node.has("max_attempts")) {
            JsonNode m = node.get("max_attempts");
            if (!m.canConvertToInt() || !m.isIntegralNumber() || m.asInt() < 0) {
                throw OjsException.unprocessable("options.retry.max_attempts must be a non-negative integer");
            }
            max = m.asInt();
        }
        Duration initial = duration(node, "initial_interval", DEFAULT.initial);
        double coefficient = DEFAULT.coefficient;
        if (node.has("backoff_coefficient")) {
            JsonNode c = node.get("backoff_coefficient");
            if (!c.isNumber() || c.asDouble() < 1.0)
                throw OjsException.unprocessable("options.retry.backoff_coefficient must be a number >= 1");
            coefficient = c.asDouble();
        }
        String strategy = node.path("backoff_strategy").asText("exponential").toLowerCase(Locale.ROOT);
        if (!List.of("exponential", "linear", "constant", "polynomial").contains(strategy)) {
            throw OjsException.unprocessable("options.retry.backoff_strategy must be exponential, linear or constant");
        }
        Duration maxInterval = duration(node, "max_interval", DEFAULT.maxInterval);
        boolean jitter = node.path("jitter").asBoolean(DEFAULT.jitter);
        List<String> nonRetryable = new ArrayList<>();
        if (node.has("non_retryable_errors")) {
            if (!node.get("non_retryable_errors").isArray())
                throw OjsException.unprocessable("options.retry.non_retryable_errors must be an array");
            node.get("non_retryable_errors").forEach(e -> nonRetryable.add(e.asText()));
        }
        String onExhaustion = node.path("on_exhaustion").asText("discard");
        if (!onExhaustion.equals("discard") && !onExhaustion.equals("dead_letter")) {
            throw OjsException.unprocessable("options.retry.on_exhaustion must be discard or dead_letter");
        }
        return new OjsRetry(
                max, initial, coefficient, strategy, maxInterval, jitter, List.copyOf(nonRetryable), onExhaustion);
    }

    private static Duration duration(JsonNode node, String field, Duration fallback) {
        if (!node.has(field)) return fallback;
        try {
            Duration d = Duration.parse(node.get(field).asText());
            if (d.isNegative()) throw OjsException.unprocessable("options.retry." + field + " must not be negative");
            return d;
        } catch (DateTimeParseException e) {
            throw OjsException.unprocessable("options.retry." + field + " must be an ISO-8601 duration such as PT1S");
        }
    }

    /** The delay before the retry that follows failed attempt {@code attempt} (1-based). */
    Duration delay(int attempt, RandomGenerator random) {
        double base = initial.toMillis();
        double millis = switch (strategy) {
            case "linear" -> base * attempt;
            case "constant" -> base;
            case "polynomial" -> base * Math.pow(attempt, coefficient);
            default -> base * Math.pow(coefficient, attempt - 1);
        };
        millis = Math.min(millis, maxInterval.toMillis());
        if (jitter) millis = millis * (0.5 + random.nextDouble());
        return Duration.ofMillis(Math.round(millis));
    }

    /** True when the error's class, type or code matches a non_retryable_errors entry (regex, so "Auth.*" is a prefix). */
    boolean nonRetryable(JsonNode error) {
        List<String> names = new ArrayList<>();
        for (String f : List.of("type", "code"))
            if (error.hasNonNull(f)) names.add(error.get(f).asText());
        if (error.path("details").hasNonNull("error_class"))
            names.add(error.path("details").get("error_class").asText());
        for (String pattern : nonRetryable) {
            for (String name : names) {
                if (name.equals(pattern)) return true;
                try {
                    if (Pattern.compile(pattern).matcher(name).matches()) return true;
                } catch (PatternSyntaxException ignored) {
                    // a plain name with regex characters: equality above was the test
                }
            }
        }
        return false;
    }

    ObjectNode toJson() {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("max_attempts", maxAttempts);
        n.put("initial_interval", initial.toString());
        n.put("backoff_coefficient", coefficient);
        n.put("backoff_strategy", strategy);
        n.put("max_interval", maxInterval.toString());
        n.put("jitter", jitter);
        ArrayNode nr = n.putArray("non_retryable_errors");
        nonRetryable.forEach(nr::add);
        n.put("on_exhaustion", onExhaustion);
        return n;
    }
}
