package dev.baton.store;

import java.util.Arrays;
import java.util.Locale;

/**
 * What a user (through a token) may do on an organization or a project, each role including the
 * ones below it (docs/api.md, "Access"). The code is what the store keeps; never renumber.
 */
public enum Role {
    /** Read jobs, reports, logs, the queue and runners' state. */
    VIEWER(1),
    /** + submit runs, cancel its own jobs, pull and push the project's images. */
    SUBMITTER(2),
    /** + cancel any job of the project, delete images. */
    MAINTAINER(3),
    /** + members and tokens of the organization or project. */
    OWNER(4);

    private final int code;

    Role(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean includes(Role other) {
        return code >= other.code;
    }

    public static Role lesser(Role a, Role b) {
        return a.code <= b.code ? a : b;
    }

    public static Role ofCode(int code) {
        for (Role r : values()) if (r.code == code) return r;
        throw new IllegalArgumentException("unknown role code " + code);
    }

    public static Role parse(String text) {
        for (Role r : values()) if (r.wireName().equals(text)) return r;
        throw new IllegalArgumentException("role must be one of "
                + Arrays.stream(values()).map(Role::wireName).toList() + ", got '" + text + "'");
    }
}
