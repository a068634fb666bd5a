package dev.baton.store;

/** What a runner said when it declined an attempt: a DeclineCode wire name and one sentence. */
public record Decline(String code, String reason) {}
