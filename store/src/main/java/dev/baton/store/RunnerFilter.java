package dev.baton.store;

/** Runner listing filters: exact name, substring search over name and slug, archived ones included or not. */
public record RunnerFilter(String name, String search, boolean archived) {}
