package dev.baton.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.store.CodeHostDelivery;
import dev.baton.store.CodeHosts;

/**
 * What {@link CodeHostSender} asks of a code host (docs/pull-requests.md): the commit's verdict
 * (a GitHub check run, a GitLab commit status) and the pull request's sticky comment, which the
 * sender finds, updates or creates while it holds it in the store.
 */
interface ReviewApi {
    /** Sets the commit's verdict; a GitHub check run made here is kept on the delivery so a retry updates it. */
    void verdict(CodeHostDelivery d, ResultsSummary summary, CodeHosts store)
            throws HostHttp.Failed, InterruptedException;

    /** The id of the pull request's comment that carries {@code marker}, or null. */
    String findComment(CodeHostDelivery d, String marker) throws HostHttp.Failed, InterruptedException;

    /** Replaces the comment's body; false when the host has no such comment any more (deleted by hand). */
    boolean updateComment(CodeHostDelivery d, String commentId, String body)
            throws HostHttp.Failed, InterruptedException;

    /** Creates the comment; returns its id. */
    String createComment(CodeHostDelivery d, String body) throws HostHttp.Failed, InterruptedException;

    /** The comment in {@code comments} (a host's JSON list) whose body carries {@code marker}, or null. */
    static String withMarker(JsonNode comments, String marker) {
        for (JsonNode c : comments) {
            if (c.path("body").asText("").contains(marker)) return c.path("id").asText();
        }
        return null;
    }
}
