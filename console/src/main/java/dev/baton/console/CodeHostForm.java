package dev.baton.console;

/**
 * The console's code host form (docs/console.md): what it was given, shown again with the API's
 * refusal ({@code error}) or after a change ({@code done}); the token is never among it, so a
 * page never carries one back.
 */
public record CodeHostForm(String kind, String repository, String apiUrl, String error, String done) {}
