package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * Follows a job's live log ({@code GET …/logs?follow=true}, Server-Sent Events, docs/api.md) until
 * the server sends {@code end}. A dropped stream is reopened with {@code Last-Event-ID} set to the
 * last entry seen, so no entry is missed or shown twice; after {@code reconnectFor} without an
 * answer the server counts as lost.
 */
final class LogFollower {
    private static final Duration RETRY_PAUSE = Duration.ofMillis(500);

    private final ApiClient api;
    private final String path;
    private final Duration reconnectFor;
    private final Clock clock;
    private String lastId;

    LogFollower(ApiClient api, String project, String job, Duration reconnectFor, Clock clock) {
        this.api = api;
        this.path = "/v0/projects/" + ApiClient.seg(project) + "/jobs/" + ApiClient.seg(job) + "/logs";
        this.reconnectFor = reconnectFor;
        this.clock = clock;
    }

    /**
     * Hands every entry ({@code {"seq","stream","iteration","text"}} or a {@code dropped} marker) to
     * {@code entries} in order; returns the job's final status from the {@code end} event.
     */
    String follow(Consumer<JsonNode> entries) throws InterruptedException {
        Instant lastAnswer = clock.instant();
        String[] end = new String[1];
        while (true) {
            try {
                api.events(path + "?follow=true", lastId, event -> {
                    switch (event.event()) {
                        case "log" -> {
                            if (event.id() != null) lastId = event.id();
                            entries.accept(parse(event.data()));
                        }
                        case "end" ->
                            end[0] = parse(event.data()).path("status").asText("ended");
                        default -> {
                            /* unknown event types are for newer clients */
                        }
                    }
                    return end[0] == null;
                });
                lastAnswer = clock.instant();
                if (end[0] != null) return end[0];
            } catch (ServerUnreachableException e) {
                if (Duration.between(lastAnswer, clock.instant()).compareTo(reconnectFor) >= 0) throw e;
            }
            if (Thread.currentThread().isInterrupted()) throw new InterruptedException();
            Thread.sleep(RETRY_PAUSE);
        }
    }

    /** The log so far (one page after {@code after}, 0 for the start): the server's JSON answer. */
    static JsonNode page(ApiClient api, String project, String job, long after) {
        return api.get("/v0/projects/" + ApiClient.seg(project) + "/jobs/" + ApiClient.seg(job) + "/logs"
                + (after > 0 ? "?after=" + after : ""));
    }

    private static JsonNode parse(String data) {
        try {
            return Wire.mapper().readTree(data);
        } catch (IOException e) {
            throw new ClientException("the server sent a log event that is not JSON: " + data);
        }
    }
}
