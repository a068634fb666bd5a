package dev.baton.cli;

import picocli.CommandLine.Command;

/** {@code baton ojs}: the Open Job Spec binding's operator commands (docs/ojs.md). */
@Command(
        name = "ojs",
        mixinStandardHelpOptions = true,
        description = "Operate the Open Job Spec binding (/ojs/v1): its workers.",
        subcommands = {OjsWorkersCommand.class})
final class OjsCommand {}
