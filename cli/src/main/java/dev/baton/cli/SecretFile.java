package dev.baton.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import picocli.CommandLine;

/**
 * A file for a secret the server shows only once (a runner key, an API token): created
 * exclusively with mode 0600 before the secret exists, so that it is never lost to a file that
 * already exists or cannot be written, and never overwrites one.
 */
final class SecretFile {
    private SecretFile() {}

    /** Creates the empty file, or refuses the option naming it. */
    static void create(Path file, String option, CommandLine commandLine) {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            throw new CommandLine.ParameterException(
                    commandLine,
                    option + " " + file
                            + " exists already; it is never overwritten (remove it or choose another path)");
        } catch (IOException e) {
            throw new CommandLine.ParameterException(commandLine, option + " " + file + " cannot be created: " + e);
        }
    }

    /** Writes the secret; {@code recovery} says how to get another one when that fails. */
    static void write(Path file, String secret, String recovery) {
        try {
            Files.writeString(file, secret + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the secret to " + file + " (" + recovery + ")", e);
        }
    }

    /** Removes the file when the secret was not made after all; an empty file left behind is harmless. */
    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // nothing was written to it
        }
    }
}
