package dev.baton.console;

import java.util.List;

/** What the usage pages show (issue 41), as the API answered; see {@link UsagePages}. */
public final class UsageViews {
    private UsageViews() {}

    /** An organization in the index. */
    public record OrganizationLink(String slug, String name) {}

    /** One project's minutes in the period. */
    public record ProjectUsage(String slug, String name, long minutes) {}

    /** An organization's usage in {@code [from, to)}, with the links to the months before and after. */
    public record OrganizationUsage(
            String slug,
            String name,
            String from,
            String to,
            long minutes,
            long allTime,
            List<ProjectUsage> projects,
            String previous,
            String next) {}
}
