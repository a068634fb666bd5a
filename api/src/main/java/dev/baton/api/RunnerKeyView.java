package dev.baton.api;

/** The one response that reveals a runner key: creation and rotation. It cannot be fetched again. */
public record RunnerKeyView(RunnerView runner, String key) {}
