package dev.baton.core.config;

import java.util.Objects;

/**
 * The runner version this server ships (issue 41): one distribution carries the server and the
 * runner agent, so it is the server's own version, read from the jar's manifest exactly as the
 * agent reads the version it reports in {@code ready} ({@code baton runner up}); run from classes
 * (no manifest) both say {@link #UNPACKAGED}.
 */
public final class ShippedVersion {
    /** What the agent reports when it runs from classes, not from the distribution's jar. */
    public static final String UNPACKAGED = "0.1.0-SNAPSHOT";

    private static final String VALUE =
            Objects.requireNonNullElse(ShippedVersion.class.getPackage().getImplementationVersion(), UNPACKAGED);

    private ShippedVersion() {}

    public static String value() {
        return VALUE;
    }

    /**
     * Whether a runner reporting {@code version} runs another version than the one shipped: null
     * when it reported none (it never said {@code ready} since versions are kept, or is older).
     */
    public static Boolean behind(String version, String shipped) {
        return version == null ? null : !version.equals(shipped);
    }
}
