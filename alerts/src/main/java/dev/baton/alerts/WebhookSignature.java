package dev.baton.alerts;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature header of a webhook body: {@code X-Baton-Signature: sha256=<hex>}, the
 * HMAC-SHA256 of the exact body bytes with the webhook's secret. A receiver computes the same
 * over the bytes it received and compares in constant time.
 */
public final class WebhookSignature {
    public static final String HEADER = "X-Baton-Signature";
    private static final String PREFIX = "sha256=";

    private WebhookSignature() {}

    public static String of(String secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return PREFIX + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
