package dev.baton.server.registry;

import dev.baton.server.config.PrivateFiles;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.server.blob.Digest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Repository metadata as small files under {@code <storage>/<project uuid>/registry/<path>/}:
 * {@code _layers/<alg>/<hex>} (empty link files), {@code _manifests/revisions/<alg>/<hex>}
 * (holding the media type), {@code _manifests/tags/<tag>} (holding the digest) and
 * {@code _referrers/<alg>/<subject hex>/<alg>-<hex>} (holding the referrer's descriptor).
 * {@code <project uuid>/registry/_all/} indexes, the same way, every blob and manifest linked to
 * any repository of the project (never removed: it is the project-wide view for pulls by digest).
 * Nested repositories are subdirectories: repository path components never start with
 * {@code _}, so they cannot collide with the metadata directories. Every write goes to a
 * temporary file moved into place, so a reader never sees half a tag.
 */
public final class DirectoryRepositories implements Repositories {
    private final Path root;
    private final ObjectMapper json = new ObjectMapper();

    public DirectoryRepositories(Path storageRoot) {
        this.root = storageRoot;
    }

    @Override
    public boolean hasBlob(RepositoryKey repo, Digest digest) {
        return Files.exists(layer(repo, digest));
    }

    @Override
    public void linkBlob(RepositoryKey repo, Digest digest) throws IOException {
        write(layer(repo, digest), "");
        write(layer(all(repo.project()), digest), "");
    }

    @Override
    public boolean projectHasContent(ProjectUuid project, Digest digest) throws IOException {
        RepositoryKey all = all(project);
        return Files.exists(layer(all, digest)) || Files.exists(revision(all, digest));
    }

    @Override
    public Optional<String> projectManifest(ProjectUuid project, Digest digest) throws IOException {
        return read(revision(all(project), digest));
    }

    @Override
    public boolean unlinkBlob(RepositoryKey repo, Digest digest) throws IOException {
        return Files.deleteIfExists(layer(repo, digest));
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
        return Files.deleteIfExists(revision(repo, digest));
    }

    @Override
    public Optional<Digest> tag(RepositoryKey repo, String tag) throws IOException {
        return read(tagDir(repo).resolve(tag)).flatMap(Digest::parse);
    }

    @Override
    public void putTag(RepositoryKey repo, String tag, Digest digest) throws IOException {
        write(tagDir(repo).resolve(tag), digest.toString());
    }

    @Override
    public boolean deleteTag(RepositoryKey repo, String tag) throws IOException {
        return Files.deleteIfExists(tagDir(repo).resolve(tag));
    }

    @Override
    public List<String> tags(RepositoryKey repo) throws IOException {
        Path dir = tagDir(repo);
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList();
        }
    }

    @Override
    public List<String> repositories(ProjectUuid project) throws IOException {
        Path base = dir(new RepositoryKey(project, ""));
        if (!Files.isDirectory(base)) return List.of();
        try (Stream<Path> dirs = Files.walk(base)) {
            // A repository is a directory with _manifests; metadata directories (and _all) start with _.
            return dirs.filter(d -> d.getFileName().toString().equals("_manifests") && Files.isDirectory(d))
                    .map(d -> base.relativize(d.getParent()).toString().replace('\\', '/'))
                    .filter(path -> path.isEmpty() || java.util.Arrays.stream(path.split("/")).noneMatch(c -> c.startsWith("_")))
                    .sorted()
                    .toList();
        }
    }

    @Override
    public boolean exists(RepositoryKey repo) {
        return Files.isDirectory(dir(repo).resolve("_manifests"));
    }

    @Override
    public void addReferrer(RepositoryKey repo, Digest subject, Descriptor referrer) throws IOException {
        Digest digest = Digest.parse(referrer.digest()).orElseThrow();
        write(referrerDir(repo, subject).resolve(digest.algorithm() + "-" + digest.hex()), json.writeValueAsString(referrer));
    }

    @Override
    public void removeReferrer(RepositoryKey repo, Digest subject, Digest referrer) throws IOException {
        Path dir = referrerDir(repo, subject);
        Files.deleteIfExists(dir.resolve(referrer.algorithm() + "-" + referrer.hex()));
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            // Other referrers of the same subject remain.
        }
    }

    @Override
    public List<Descriptor> referrers(RepositoryKey repo, Digest subject) throws IOException {
        Path dir = referrerDir(repo, subject);
        if (!Files.isDirectory(dir)) return List.of();
        List<Descriptor> result = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(p -> !p.getFileName().toString().startsWith(".")).sorted(Comparator.naturalOrder()).toList()) {
                Optional<String> content = read(file);
                if (content.isPresent()) result.add(json.readValue(content.get(), Descriptor.class));
            }
        }
        return result;
    }

    /** The project-wide index, kept like a repository named {@code _all} (no real path component starts with _). */
    private static RepositoryKey all(ProjectUuid project) {
        return new RepositoryKey(project, "_all");
    }

    private Path dir(RepositoryKey repo) {
        Path project = root.resolve(repo.project().toString()).resolve("registry");
        return repo.path().isEmpty() ? project : project.resolve(repo.path());
    }

    private Path layer(RepositoryKey repo, Digest digest) {
        return dir(repo).resolve("_layers").resolve(digest.algorithm()).resolve(digest.hex());
    }

    private Path revision(RepositoryKey repo, Digest digest) {
        return dir(repo).resolve("_manifests").resolve("revisions").resolve(digest.algorithm()).resolve(digest.hex());
    }

    private Path tagDir(RepositoryKey repo) {
        return dir(repo).resolve("_manifests").resolve("tags");
    }

    private Path referrerDir(RepositoryKey repo, Digest subject) {
        return dir(repo).resolve("_referrers").resolve(subject.algorithm()).resolve(subject.hex());
    }

    private static Optional<String> read(Path file) throws IOException {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    private static void write(Path file, String content) throws IOException {
        PrivateFiles.createDirectories(file.getParent());
        Path tmp = Files.createTempFile(file.getParent(), ".tmp-", "");
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
