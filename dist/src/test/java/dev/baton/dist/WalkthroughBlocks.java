package dev.baton.dist;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shell code blocks of a Markdown document that are marked to be run: a fenced {@code sh} or
 * {@code bash} block directly after a line {@code <!-- walkthrough -->} (blank lines between are
 * allowed). Unmarked blocks are examples for the eye only.
 */
record WalkthroughBlocks(List<Block> blocks) {
    static final String MARKER = "<!-- walkthrough -->";

    private static final Pattern MARKED = Pattern.compile(
            "^" + Pattern.quote(MARKER) + "[ \\t]*\\n(?:[ \\t]*\\n)*```(?:sh|bash)[ \\t]*\\n(.*?)^```[ \\t]*$",
            Pattern.MULTILINE | Pattern.DOTALL);

    /** One block: its code and the 1-based line of the document where the code starts. */
    record Block(int line, String code) {}

    static WalkthroughBlocks of(String markdown) {
        List<Block> found = new ArrayList<>();
        Matcher m = MARKED.matcher(markdown.replace("\r\n", "\n"));
        String text = markdown.replace("\r\n", "\n");
        while (m.find()) {
            int line = (int) text.substring(0, m.start(1))
                            .chars()
                            .filter(c -> c == '\n')
                            .count()
                    + 1;
            found.add(new Block(line, m.group(1)));
        }
        return new WalkthroughBlocks(List.copyOf(found));
    }

    /**
     * One bash script of all blocks in order: stops at the first failing command ({@code -e},
     * pipefail, unset variables are errors), traces each command, says which block it is in, and
     * stops the background jobs a block started (e.g. a runner) when it ends.
     */
    String script(String document) {
        StringBuilder s = new StringBuilder("""
                set -euo pipefail
                trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
                set -x
                """);
        for (Block b : blocks) {
            s.append(": walkthrough block at ")
                    .append(document)
                    .append(" line ")
                    .append(b.line())
                    .append('\n');
            s.append(b.code());
            if (!b.code().endsWith("\n")) s.append('\n');
        }
        return s.toString();
    }
}
