package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code baton completion bash|zsh|fish}: a completion script generated from the command model. */
@Command(
        name = "completion",
        mixinStandardHelpOptions = true,
        description = {
            "Print a shell completion script.",
            "bash:  source <(baton completion bash)      (or save it in /etc/bash_completion.d/baton)",
            "zsh:   source <(baton completion zsh)       (in ~/.zshrc)",
            "fish:  baton completion fish > ~/.config/fish/completions/baton.fish"
        })
final class CompletionCommand implements Callable<Integer> {
    enum Shell {
        bash,
        zsh,
        fish
    }

    @Parameters(paramLabel = "SHELL", description = "bash, zsh or fish")
    Shell shell;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine root = spec.root().commandLine();
        String script = switch (shell) {
            case bash -> AutoComplete.bash("baton", root);
            // zsh runs bash completion functions through bashcompinit.
            case zsh ->
                "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n"
                        + AutoComplete.bash("baton", root);
            case fish -> FishCompletion.script("baton", root.getCommandSpec());
        };
        spec.commandLine().getOut().print(script);
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }
}
