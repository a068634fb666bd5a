package dev.baton.registry;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.store.blob.Digest;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Per-repository metadata over the shared blob store: which blobs a repository may read (links),
 * which manifests it holds (with their media type), its tags, and the referrers of each subject.
 * The links are what keep projects apart: a blob stored for project A is invisible to project B
 * until B uploads (or mounts, within B) the same content itself.
 */
public interface Repositories {

    boolean hasBlob(RepositoryKey repo, Digest digest) throws IOException;

    /**
     * True when any repository of the project has ever held this blob or manifest. Backs the
     * project's root repository for pulls by digest: a job names only project and digest (seed
     * 001), so a runner pulls {@code <project>@<digest>} whatever repository the image was pushed to.
     */
    boolean projectHasContent(ProjectUuid project, Digest digest) throws IOException;

    /** The media type of a manifest pushed to any repository of the project, for the same pulls. */
    Optional<String> projectManifest(ProjectUuid project, Digest digest) throws IOException;

    void linkBlob(RepositoryKey repo, Digest digest) throws IOException;

    boolean unlinkBlob(RepositoryKey repo, Digest digest) throws IOException;

    /** The media type the manifest was stored with, empty when the repository holds no such manifest. */
    Optional<String> manifest(RepositoryKey repo, Digest digest) throws IOException;

    void putManifest(RepositoryKey repo, Digest digest, String mediaType) throws IOException;

    boolean deleteManifest(RepositoryKey repo, Digest digest) throws IOException;

    Optional<Digest> tag(RepositoryKey repo, String tag) throws IOException;

    void putTag(RepositoryKey repo, String tag, Digest digest) throws IOException;

    boolean deleteTag(RepositoryKey repo, String tag) throws IOException;

    /** All tags, sorted lexically (the order the tags list pages through). */
    List<String> tags(RepositoryKey repo) throws IOException;

    /** The paths of the project's repositories that hold a manifest or tag, sorted ("" is the project's root repository). */
    List<String> repositories(ProjectUuid project) throws IOException;

    /** True once the repository has held a manifest or tag (a name the registry knows). */
    boolean exists(RepositoryKey repo) throws IOException;

    void addReferrer(RepositoryKey repo, Digest subject, Descriptor referrer) throws IOException;

    void removeReferrer(RepositoryKey repo, Digest subject, Digest referrer) throws IOException;

    List<Descriptor> referrers(RepositoryKey repo, Digest subject) throws IOException;
}
