package dev.baton.cli.router;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.RouterKeys;
import dev.baton.router.RunnerEntry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton router keys add|rotate|remove|list}: the keys of the runners behind a router. The
 * file keeps only SHA-256 hashes; a new key is printed once. A running router reads the file again
 * when it changes, so rotation needs no restart.
 */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        description = "Manage the keys of the runners behind a router.",
        subcommands = {
            RouterKeysCommand.Add.class,
            RouterKeysCommand.Rotate.class,
            RouterKeysCommand.Remove.class,
            RouterKeysCommand.ListKeys.class
        })
public final class RouterKeysCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Options every keys subcommand shares. */
    static class FileOption {
        @Option(
                names = "--keys-file",
                defaultValue = "router-keys",
                description = "The router's keys file (default ${DEFAULT-VALUE})")
        Path keysFile;
    }

    @Command(
            name = "add",
            mixinStandardHelpOptions = true,
            description = "Add a runner (name and specs) and print its new key once.")
    static final class Add extends FileOption implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", description = "The runner's name (its --runner)")
        String name;

        @Option(names = "--spec", required = true, description = "A spec (slug) it serves; repeat for several")
        List<String> specs;

        @Override
        public Integer call() throws Exception {
            return issue(spec, keysFile, name, specs);
        }
    }

    @Command(
            name = "rotate",
            mixinStandardHelpOptions = true,
            description = "Give a runner a new key (the old one is refused at once).")
    static final class Rotate extends FileOption implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", description = "The runner's name")
        String name;

        @Override
        public Integer call() throws Exception {
            boolean known = new RouterKeys(keysFile)
                    .entries().stream().anyMatch(e -> e.name().equals(name));
            if (!known) {
                spec.commandLine()
                        .getErr()
                        .println("baton router keys rotate: no runner '" + name + "' in " + keysFile);
                return 1;
            }
            return issue(spec, keysFile, name, List.of());
        }
    }

    @Command(
            name = "remove",
            mixinStandardHelpOptions = true,
            description = "Remove a runner: its key is refused from now on.")
    static final class Remove extends FileOption implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", description = "The runner's name")
        String name;

        @Override
        public Integer call() throws Exception {
            if (RouterKeys.remove(keysFile, name)) return 0;
            spec.commandLine().getErr().println("baton router keys remove: no runner '" + name + "' in " + keysFile);
            return 1;
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "List the runners and their specs (never keys).")
    static final class ListKeys extends FileOption implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            var out = spec.commandLine().getOut();
            for (RunnerEntry e : new RouterKeys(keysFile).entries())
                out.println(e.name() + "  " + String.join(",", e.specs()));
            out.flush();
            return 0;
        }
    }

    private static int issue(CommandLine.Model.CommandSpec spec, Path keysFile, String name, List<String> specs) {
        try {
            RunnerKey key = RouterKeys.issue(keysFile, name, specs);
            var out = spec.commandLine().getOut();
            out.println(key.reveal());
            out.flush();
            spec.commandLine()
                    .getErr()
                    .println("key of runner '" + name + "' (shown once; only its hash is in " + keysFile + ")");
            return 0;
        } catch (IllegalArgumentException | java.io.IOException e) {
            spec.commandLine().getErr().println("baton router keys: " + e.getMessage());
            return 2;
        }
    }
}
