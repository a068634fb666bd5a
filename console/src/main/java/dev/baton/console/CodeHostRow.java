package dev.baton.console;

/**
 * One code host as the console's code hosts page shows it (docs/pull-requests.md): what {@code
 * GET /v0/projects/{project}/code-hosts} says of it (never its token) and its newest delivery,
 * {@code lastDelivery} null when it has none yet.
 */
public record CodeHostRow(
        String uuid, String kind, String repository, String apiUrl, String created, String lastDelivery) {}
