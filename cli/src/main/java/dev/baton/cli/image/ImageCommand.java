package dev.baton.cli.image;

import picocli.CommandLine.Command;

/** {@code baton image}: the group of image commands (push, for now). */
@Command(
        name = "image",
        mixinStandardHelpOptions = true,
        description = "Work with images in Baton's registry.",
        subcommands = ImagePushCommand.class)
public final class ImageCommand {}
