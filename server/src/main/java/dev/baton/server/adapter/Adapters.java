package dev.baton.server.adapter;

import java.util.List;
import java.util.Optional;

/** The adapters a run may name; {@code raw} when it names none. */
public final class Adapters {
    public static final String DEFAULT = "raw";
    private final List<Adapter> all = List.of(new RawAdapter(), new JsonAdapter());

    public Optional<Adapter> find(String name) {
        String wanted = name == null || name.isBlank() ? DEFAULT : name;
        return all.stream().filter(a -> a.name().equals(wanted)).findFirst();
    }

    public List<String> names() {
        return all.stream().map(Adapter::name).toList();
    }
}
