package dev.baton.dispatch.channel;

import dev.baton.protocol.value.Architecture;
import dev.baton.store.Spec;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A runner must run on the architecture of every spec it serves (issue 41): a runner that reports
 * another {@code arch} in {@code ready} would claim jobs it can only decline or run wrongly, so it
 * is refused instead. A {@code ready} without {@code arch} (older runners, a router, which stands
 * for runners of any architecture) is not checked.
 */
final class ArchitectureCheck {
    /** The close code of a refused runner (private use, RFC 6455). */
    static final int CLOSE_WRONG_ARCHITECTURE = 4009;

    private ArchitectureCheck() {}

    /** Why the runner is refused, or null when its reported architecture fits all of its (non-archived) specs. */
    static String refusal(String reported, String runner, List<Spec> specs) {
        if (reported == null || reported.isBlank()) return null;
        String arch = normalized(reported);
        List<Spec> other = specs.stream()
                .filter(s ->
                        s.archived() == null && !s.architecture().wireName().equals(arch))
                .toList();
        if (other.isEmpty()) return null;
        return "runner " + runner + " reports architecture " + arch + " but serves "
                + other.stream()
                        .map(s -> "spec " + s.slug().value() + " ("
                                + s.architecture().wireName() + ")")
                        .collect(Collectors.joining(", "))
                + "; run it on a machine of that architecture or remove the spec from it";
    }

    /** The JVM's and the kernel's other names for Baton's architectures. */
    private static String normalized(String reported) {
        String a = reported.strip().toLowerCase(Locale.ROOT);
        return switch (a) {
            case "amd64", "x64" -> Architecture.X86_64.wireName();
            case "arm64" -> Architecture.AARCH64.wireName();
            default -> a;
        };
    }
}
