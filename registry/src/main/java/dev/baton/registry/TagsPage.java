package dev.baton.registry;

import java.util.List;

/** One page of a tags list; {@code more} tells whether a next page exists (for the Link header). */
public record TagsPage(List<String> tags, boolean more) {}
