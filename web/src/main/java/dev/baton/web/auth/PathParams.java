package dev.baton.web.auth;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** The {@code {name}} segments of a route template read from a request path that matched it. */
final class PathParams {
    private PathParams() {}

    static Map<String, String> of(String template, String path) {
        String[] names = template.split("/");
        String[] values = path.split("/");
        Map<String, String> params = new HashMap<>();
        for (int i = 0; i < names.length && i < values.length; i++) {
            if (names[i].startsWith("{") && names[i].endsWith("}")) {
                params.put(
                        names[i].substring(1, names[i].length() - 1),
                        URLDecoder.decode(values[i], StandardCharsets.UTF_8));
            }
        }
        return params;
    }
}
