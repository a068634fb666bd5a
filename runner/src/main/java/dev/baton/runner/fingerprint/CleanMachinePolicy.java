package dev.baton.runner.fingerprint;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.SpecView;
import dev.baton.runner.executor.StartCheck;
import java.util.stream.Collectors;

/**
 * A spec with {@code require_clean_fingerprint} gets numbers only from a machine with no noise
 * warning; anywhere else its job is declined ({@code noisy_machine}) and goes to another runner,
 * rather than run and produce numbers that lie. A fingerprint that could not be read at all is
 * not clean either.
 */
public final class CleanMachinePolicy {
    private CleanMachinePolicy() {}

    public static StartCheck check(SpecView spec, MachineFingerprint fingerprint) {
        if (spec == null || !spec.requireCleanFingerprint()) return StartCheck.GO;
        if (fingerprint == null) {
            return StartCheck.decline(
                    DeclineCode.NOISY_MACHINE,
                    "spec " + spec.slug()
                            + " requires a clean machine fingerprint and this runner could not read its machine");
        }
        if (fingerprint.clean()) return StartCheck.GO;
        return StartCheck.decline(
                DeclineCode.NOISY_MACHINE,
                "spec " + spec.slug() + " requires a clean machine fingerprint: "
                        + fingerprint.warnings().stream()
                                .map(w -> w.code() + ": " + w.message())
                                .collect(Collectors.joining("; ")));
    }
}
