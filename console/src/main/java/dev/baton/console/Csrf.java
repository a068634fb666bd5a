package dev.baton.console;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * CSRF tokens of the console's forms. A signed-in session's token is an HMAC keyed with the
 * session's own secret, so it needs no storage and is the same on every server node, and a page
 * that shows it reveals nothing about the secret. Before sign-in, the form carries a random value
 * that must equal the one in an HttpOnly cookie (double submit), so no other site can sign a
 * browser in under its own token.
 */
final class Csrf {
    static final String FIELD = "_csrf";
    static final String PRE_SESSION_COOKIE = "baton_console_pre";

    private Csrf() {}

    static String ofSession(String sessionSecret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(sessionSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(mac.doFinal("baton console csrf v1".getBytes(StandardCharsets.US_ASCII)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required by every JDK", e);
        }
    }

    static String random() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Constant-time; a missing side never matches. */
    static boolean matches(String expected, String presented) {
        if (expected == null || presented == null || expected.isEmpty()) return false;
        return MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII), presented.getBytes(StandardCharsets.US_ASCII));
    }
}
