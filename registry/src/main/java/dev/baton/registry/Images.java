package dev.baton.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.store.blob.BlobStorage;
import dev.baton.store.blob.BlobStore;
import dev.baton.store.blob.Digest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The images a project's registry holds, as {@code POST /v0/run} sees them: an image reference
 * resolved to the digest of a manifest the project really has, and the command its config names.
 * A reference is a digest ({@code sha256:…}, any repository of the project), or a tag of the
 * project's root repository ({@code v1}), or {@code path:tag} / {@code path@sha256:…} for a
 * repository inside the project (pushed as {@code <registry>/<project>/<path>:<tag>}).
 */
public final class Images {
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A resolved image: its manifest digest and, for a single-platform image, the config's Entrypoint and Cmd. */
    public record Resolved(String digest, boolean commandKnown, List<String> entrypoint, List<String> cmd) {
        /** True when the image itself names something to run. */
        public boolean hasCommand() {
            return !entrypoint.isEmpty() || !cmd.isEmpty();
        }
    }

    private final BlobStore blobs;
    private final Repositories repositories;

    public Images(BlobStore blobs, Repositories repositories) {
        this.blobs = blobs;
        this.repositories = repositories;
    }

    /** The images of a server's blob storage. */
    public static Images in(BlobStorage storage) {
        return new Images(storage.blobs(), new ObjectRepositories(storage.objects()));
    }

    /** True when {@code reference} is shaped like an image reference this class understands. */
    public static boolean isReference(String reference) {
        if (reference == null) return false;
        if (DIGEST.matcher(reference).matches()) return true;
        if (reference.startsWith("sha256:")) return false; // a digest, but not a valid one
        int at = reference.indexOf('@');
        if (at > 0)
            return RepositoryName.parse(reference.substring(0, at)).isPresent()
                    && DIGEST.matcher(reference.substring(at + 1)).matches();
        int colon = reference.lastIndexOf(':');
        if (colon < 0) return TAG.matcher(reference).matches();
        return colon > 0
                && RepositoryName.parse(reference.substring(0, colon)).isPresent()
                && TAG.matcher(reference.substring(colon + 1)).matches();
    }

    /** The image {@code reference} names in {@code project}'s registry, or empty when there is no such manifest. */
    public Optional<Resolved> find(ProjectUuid project, String reference) {
        try {
            Optional<Digest> digest = resolve(project, reference);
            if (digest.isEmpty()) return Optional.empty();
            return Optional.of(inspect(digest.get()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the registry of project " + project, e);
        }
    }

    /** The project's repositories (by path, "" for its root) with their tags, sorted. */
    public java.util.Map<String, List<String>> repositories(ProjectUuid project) {
        try {
            java.util.Map<String, List<String>> out = new java.util.LinkedHashMap<>();
            for (String path : repositories.repositories(project))
                out.put(path, repositories.tags(new RepositoryKey(project, path)));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the registry of project " + project, e);
        }
    }

    private Optional<Digest> resolve(ProjectUuid project, String reference) throws IOException {
        if (DIGEST.matcher(reference).matches()) {
            Optional<Digest> d = Digest.parse(reference);
            return d.isPresent()
                            && repositories.projectManifest(project, d.get()).isPresent()
                    ? d
                    : Optional.empty();
        }
        int at = reference.indexOf('@');
        if (at > 0) {
            RepositoryKey repo = new RepositoryKey(project, reference.substring(0, at));
            Optional<Digest> d = Digest.parse(reference.substring(at + 1));
            return d.isPresent() && repositories.manifest(repo, d.get()).isPresent() ? d : Optional.empty();
        }
        int colon = reference.lastIndexOf(':');
        RepositoryKey repo = new RepositoryKey(project, colon < 0 ? "" : reference.substring(0, colon));
        Optional<Digest> tagged = repositories.tag(repo, colon < 0 ? reference : reference.substring(colon + 1));
        return tagged.isPresent() && repositories.manifest(repo, tagged.get()).isPresent() ? tagged : Optional.empty();
    }

    /** Reads the manifest and, for an image manifest, its config's Entrypoint and Cmd. An index's command is not known. */
    private Resolved inspect(Digest digest) throws IOException {
        JsonNode manifest = readJson(digest);
        if (manifest == null || !manifest.has("config"))
            return new Resolved(digest.toString(), false, List.of(), List.of());
        Optional<Digest> configDigest =
                Digest.parse(manifest.path("config").path("digest").asText(null));
        JsonNode config = configDigest.isPresent() ? readJson(configDigest.get()) : null;
        if (config == null) return new Resolved(digest.toString(), false, List.of(), List.of());
        JsonNode c = config.path("config");
        return new Resolved(digest.toString(), true, strings(c.path("Entrypoint")), strings(c.path("Cmd")));
    }

    private JsonNode readJson(Digest digest) throws IOException {
        if (blobs.size(digest).isEmpty()) return null;
        try (InputStream in = blobs.open(digest, 0)) {
            return JSON.readTree(in.readNBytes((int) Registry.MAX_MANIFEST_BYTES));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return null;
        }
    }

    private static List<String> strings(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node != null && node.isArray()) node.forEach(n -> out.add(n.asText()));
        return out;
    }
}
