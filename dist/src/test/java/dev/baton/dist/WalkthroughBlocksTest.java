package dev.baton.dist;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which blocks of a Markdown document the walkthrough test runs. */
class WalkthroughBlocksTest {
    @Test
    void onlyMarkedShellBlocksInDocumentOrderWithTheirLines() {
        String md = """
                # Title

                ```sh
                echo unmarked
                ```

                <!-- walkthrough -->
                ```sh
                echo one
                echo two
                ```

                <!-- walkthrough -->

                ```bash
                echo three
                ```

                <!-- walkthrough -->
                ```json
                {"not": "shell"}
                ```
                """;
        var blocks = WalkthroughBlocks.of(md).blocks();
        assertThat(blocks)
                .extracting(WalkthroughBlocks.Block::code)
                .containsExactly("echo one\necho two\n", "echo three\n");
        assertThat(blocks).extracting(WalkthroughBlocks.Block::line).containsExactly(9, 16);
    }

    @Test
    void theScriptStopsAtTheFirstFailureAndNamesEachBlock() {
        String script =
                WalkthroughBlocks.of("<!-- walkthrough -->\n```sh\ntrue\n```\n").script("README.md");
        assertThat(script)
                .startsWith("set -euo pipefail\n")
                .contains(": walkthrough block at README.md line 3\ntrue\n");
    }
}
