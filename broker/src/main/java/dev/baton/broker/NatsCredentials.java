package dev.baton.broker;

import io.nats.client.AuthHandler;
import io.nats.client.NKey;
import io.nats.client.Nats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * The server's own NATS user from a file ({@code nats_credentials}), so no password has to sit in
 * {@code nats_url} (a URL ends up in process lists, shell history and logs). Two forms: a
 * {@code .creds} file as {@code nsc} writes it (user JWT and nkey seed; for operator/JWT
 * deployments), or an nkey seed alone ({@code SU…}, for a nats-server.conf user
 * {@code { nkey: U… }}). jnats reads the first itself; it does not sign with a bare seed, hence
 * the handler here. The seed never appears in an exception or a log.
 */
final class NatsCredentials {
    private NatsCredentials() {}

    static AuthHandler fromFile(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read nats_credentials " + file, e);
        }
        if (text.contains("BEGIN NATS USER JWT")) return Nats.credentials(file.toString());
        String seed = text.lines()
                .map(String::strip)
                .filter(l -> l.startsWith("SU"))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalArgumentException(
                                "nats_credentials " + file
                                        + " holds neither a .creds file (user JWT and seed) nor an nkey user seed (a line starting with SU)"));
        NKey key;
        try {
            key = NKey.fromSeed(seed.toCharArray());
            key.getPublicKey();
        } catch (GeneralSecurityException | IOException | RuntimeException e) {
            throw new IllegalArgumentException("nats_credentials " + file + " holds no valid nkey user seed");
        }
        return new SeedHandler(key);
    }

    /** Signs the server's nonce with the seed; no JWT, so jnats sends the public nkey in CONNECT. */
    private record SeedHandler(NKey key) implements AuthHandler {
        @Override
        public byte[] sign(byte[] nonce) {
            try {
                return key.sign(nonce);
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException("cannot sign the NATS nonce with the nkey seed", e);
            }
        }

        @Override
        public char[] getID() {
            try {
                return key.getPublicKey();
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException("cannot derive the public nkey from the seed", e);
            }
        }

        @Override
        public char[] getJWT() {
            return null;
        }

        @Override
        public String toString() {
            return "SeedHandler[redacted]";
        }
    }
}
