package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.store.OjsStore;
import java.time.Duration;

/**
 * A queue's rate limit as a pushed job sets it ({@code options.rate_limit}:
 * {@code max_per_second} or {@code max_per_minute}): at most {@code max} jobs of the queue handed
 * out per {@code window}, on every node together (the count is in the store).
 */
record OjsRateLimit(int max, Duration window) {
    /** Null when the job has no {@code options.rate_limit}. */
    static OjsRateLimit parse(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) return null;
        if (!node.isObject()) throw OjsException.invalid("options.rate_limit must be an object");
        if (node.has("max_per_second")) return of(node.get("max_per_second"), "max_per_second", Duration.ofSeconds(1));
        if (node.has("max_per_minute")) return of(node.get("max_per_minute"), "max_per_minute", Duration.ofMinutes(1));
        throw OjsException.invalid("options.rate_limit needs max_per_second or max_per_minute");
    }

    /** The limit as the store writes it, with the job that carries it. */
    OjsStore.RateLimit stored() {
        return new OjsStore.RateLimit(max, window);
    }

    private static OjsRateLimit of(JsonNode value, String field, Duration window) {
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.asInt() < 1) {
            throw OjsException.invalid("options.rate_limit." + field + " must be a positive integer");
        }
        return new OjsRateLimit(value.asInt(), window);
    }
}
