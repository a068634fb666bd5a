package dev.baton.store;

/**
 * The sticky comment of one host, pull request, branch and testbed (docs/pull-requests.md):
 * its id on the host once written ({@code remoteId}) and the report it shows.
 */
public record CodeHostComment(long id, String remoteId, Long reportId) {}
