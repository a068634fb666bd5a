package dev.baton.cli;

import picocli.CommandLine;

/** The version from the jar manifest (or "dev" when run from classes). */
final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Baton.class.getPackage().getImplementationVersion();
        return new String[] {"baton " + (v == null ? "dev" : v)};
    }
}
