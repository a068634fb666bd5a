package dev.baton.console;

import java.util.List;

/** What the fleet forms (create a runner, create and edit a spec, assign specs) show; see {@link FleetForms}. */
public final class FleetFormViews {
    private FleetFormViews() {}

    /** A spec as a checkbox: {@code chosen} when the runner serves it (or the form asked for it). */
    public record SpecChoice(String uuid, String slug, String name, String shape, boolean chosen) {}

    /** The runner form, filled again with what was sent when the API refused it. */
    public record RunnerForm(String name, String slug, List<SpecChoice> specs, String error) {}

    /**
     * The spec form: {@code editing} names the spec being edited (its shape is fixed once created,
     * so only name, slug, queue timeout and the clean-fingerprint rule are editable);
     * null for a new spec. Sizes are in GiB as typed; {@code error} is the API's refusal.
     */
    public record SpecForm(
            String editing,
            String name,
            String slug,
            String architecture,
            String cpu,
            String memoryGib,
            String diskGib,
            boolean network,
            String queueTimeout,
            boolean requireCleanFingerprint,
            String error) {
        public String action() {
            return editing == null ? "/console/specs" : "/console/specs/" + editing;
        }
    }

    /** The runner's specs page: every unarchived spec, checked when the runner serves it. */
    public record RunnerSpecs(String runner, String name, List<SpecChoice> specs) {}

    /** A runner just created: its key, shown on this one page and never again. */
    public record CreatedRunner(String slug, String name, String key, List<String> specs, String warning) {}
}
