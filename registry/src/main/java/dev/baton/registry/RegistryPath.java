package dev.baton.registry;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The endpoints of the distribution API, parsed from the request path after {@code /v2/}. The
 * name may itself contain slashes, so each pattern takes the longest name before its fixed
 * suffix (references and digests never contain a slash).
 */
public sealed interface RegistryPath {
    record Base() implements RegistryPath {}

    record Blob(String name, String digest) implements RegistryPath {}

    record Uploads(String name) implements RegistryPath {}

    record Upload(String name, String id) implements RegistryPath {}

    record Manifest(String name, String reference) implements RegistryPath {}

    record Tags(String name) implements RegistryPath {}

    record Referrers(String name, String digest) implements RegistryPath {}

    Pattern UPLOADS = Pattern.compile("(.+)/blobs/uploads/?");
    Pattern UPLOAD = Pattern.compile("(.+)/blobs/uploads/([^/]+)");
    Pattern BLOB = Pattern.compile("(.+)/blobs/([^/]+)");
    Pattern MANIFEST = Pattern.compile("(.+)/manifests/([^/]+)");
    Pattern TAGS = Pattern.compile("(.+)/tags/list");
    Pattern REFERRERS = Pattern.compile("(.+)/referrers/([^/]+)");

    /** Parses the part of the path after {@code /v2/}; empty for paths that are no endpoint. */
    static Optional<RegistryPath> parse(String rest) {
        if (rest.isEmpty()) return Optional.of(new Base());
        Matcher m;
        if ((m = UPLOADS.matcher(rest)).matches()) return Optional.of(new Uploads(m.group(1)));
        if ((m = UPLOAD.matcher(rest)).matches()) return Optional.of(new Upload(m.group(1), m.group(2)));
        if ((m = BLOB.matcher(rest)).matches()) return Optional.of(new Blob(m.group(1), m.group(2)));
        if ((m = MANIFEST.matcher(rest)).matches()) return Optional.of(new Manifest(m.group(1), m.group(2)));
        if ((m = TAGS.matcher(rest)).matches()) return Optional.of(new Tags(m.group(1)));
        if ((m = REFERRERS.matcher(rest)).matches()) return Optional.of(new Referrers(m.group(1), m.group(2)));
        return Optional.empty();
    }
}
