package dev.baton.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.store.blob.Digest;
import dev.baton.store.blob.FileObjects;
import dev.baton.store.blob.NamedObjects;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Repository metadata as small objects (files in the storage directory, or objects in the
 * bucket) under {@code <project uuid>/registry/<path>/}:
 * {@code _layers/<alg>/<hex>} (empty link objects), {@code _manifests/revisions/<alg>/<hex>}
 * (holding the media type), {@code _manifests/tags/<tag>} (holding the digest) and
 * {@code _referrers/<alg>/<subject hex>/<alg>-<hex>} (holding the referrer's descriptor).
 * {@code <project uuid>/registry/_all/} indexes, the same way, every blob and manifest linked to
 * any repository of the project (never removed: it is the project-wide view for pulls by digest).
 * Nested repositories are deeper keys: repository path components never start with
 * {@code _}, so they cannot collide with the metadata names. Every write replaces a whole object
 * atomically ({@link NamedObjects}), so a reader never sees half a tag.
 */
public final class ObjectRepositories implements Repositories {
    private final NamedObjects objects;
    private final ObjectMapper json = new ObjectMapper();

    public ObjectRepositories(NamedObjects objects) {
        this.objects = objects;
    }

    /** The metadata in a storage directory. */
    public static ObjectRepositories in(Path storageRoot) {
        return new ObjectRepositories(new FileObjects(storageRoot));
    }

    @Override
    public boolean hasBlob(RepositoryKey repo, Digest digest) throws IOException {
        return objects.exists(layer(repo, digest));
    }

    @Override
    public void linkBlob(RepositoryKey repo, Digest digest) throws IOException {
        write(layer(repo, digest), "");
        write(layer(all(repo.project()), digest), "");
    }

    @Override
    public boolean projectHasContent(ProjectUuid project, Digest digest) throws IOException {
        RepositoryKey all = all(project);
        return objects.exists(layer(all, digest)) || objects.exists(revision(all, digest));
    }

    @Override
    public Optional<String> projectManifest(ProjectUuid project, Digest digest) throws IOException {
        return read(revision(all(project), digest));
    }

    @Override
    public boolean unlinkBlob(RepositoryKey repo, Digest digest) throws IOException {
        return objects.delete(layer(repo, digest));
    }

    @Override
    public Optional<String> manifest(RepositoryKey repo, Digest digest) throws IOException {
        return read(revision(repo, digest));
    }

    @Override
    public void putManifest(RepositoryKey repo, Digest digest, String mediaType) throws IOException {
        write(revision(repo, digest), mediaType);
        write(revision(all(repo.project()), digest), mediaType);
    }

    @Override
    public boolean deleteManifest(RepositoryKey repo, Digest digest) throws IOException {
        return objects.delete(revision(repo, digest));
    }

    @Override
    public Optional<Digest> tag(RepositoryKey repo, String tag) throws IOException {
        return read(tagDir(repo) + tag).flatMap(Digest::parse);
    }

    @Override
    public void putTag(RepositoryKey repo, String tag, Digest digest) throws IOException {
        write(tagDir(repo) + tag, digest.toString());
    }

    @Override
    public boolean deleteTag(RepositoryKey repo, String tag) throws IOException {
        return objects.delete(tagDir(repo) + tag);
    }

    @Override
    public List<String> tags(RepositoryKey repo) throws IOException {
        return objects.list(tagDir(repo));
    }

    @Override
    public List<String> repositories(ProjectUuid project) throws IOException {
        // A repository is a path with manifests; metadata (and the _all index) are under components starting with _.
        java.util.TreeSet<String> paths = new java.util.TreeSet<>();
        for (String key : objects.listAll(dir(new RepositoryKey(project, "")))) {
            int at = key.indexOf("_manifests/");
            if (at < 0) continue;
            String path = at == 0 ? "" : key.substring(0, at - 1);
            if (path.isEmpty() || java.util.Arrays.stream(path.split("/")).noneMatch(c -> c.startsWith("_")))
                paths.add(path);
        }
        return List.copyOf(paths);
    }

    @Override
    public boolean exists(RepositoryKey repo) throws IOException {
        return objects.anyUnder(dir(repo) + "_manifests/");
    }

    @Override
    public void addReferrer(RepositoryKey repo, Digest subject, Descriptor referrer) throws IOException {
        Digest digest = Digest.parse(referrer.digest()).orElseThrow();
        write(referrerDir(repo, subject) + digest.algorithm() + "-" + digest.hex(), json.writeValueAsString(referrer));
    }

    @Override
    public void removeReferrer(RepositoryKey repo, Digest subject, Digest referrer) throws IOException {
        objects.delete(referrerDir(repo, subject) + referrer.algorithm() + "-" + referrer.hex());
    }

    @Override
    public List<Descriptor> referrers(RepositoryKey repo, Digest subject) throws IOException {
        String dir = referrerDir(repo, subject);
        List<Descriptor> result = new ArrayList<>();
        for (String name : objects.list(dir)) {
            Optional<String> content = read(dir + name);
            if (content.isPresent()) result.add(json.readValue(content.get(), Descriptor.class));
        }
        return result;
    }

    /** The project-wide index, kept like a repository named {@code _all} (no real path component starts with _). */
    private static RepositoryKey all(ProjectUuid project) {
        return new RepositoryKey(project, "_all");
    }

    /** The repository's key prefix, ending in {@code /}. */
    private static String dir(RepositoryKey repo) {
        String project = repo.project() + "/registry/";
        return repo.path().isEmpty() ? project : project + repo.path() + "/";
    }

    private static String layer(RepositoryKey repo, Digest digest) {
        return dir(repo) + "_layers/" + digest.algorithm() + "/" + digest.hex();
    }

    private static String revision(RepositoryKey repo, Digest digest) {
        return dir(repo) + "_manifests/revisions/" + digest.algorithm() + "/" + digest.hex();
    }

    private static String tagDir(RepositoryKey repo) {
        return dir(repo) + "_manifests/tags/";
    }

    private static String referrerDir(RepositoryKey repo, Digest subject) {
        return dir(repo) + "_referrers/" + subject.algorithm() + "/" + subject.hex() + "/";
    }

    private Optional<String> read(String key) throws IOException {
        return objects.read(key).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    private void write(String key, String content) throws IOException {
        objects.write(key, content.getBytes(StandardCharsets.UTF_8));
    }
}
