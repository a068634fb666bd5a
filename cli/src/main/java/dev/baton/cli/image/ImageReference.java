package dev.baton.cli.image;

import dev.baton.registry.RepositoryName;
import java.net.URI;
import java.util.regex.Pattern;

/**
 * Where to push: {@code [http(s)://host[:port]/]<project>/<name>[:<tag>]}. Without a server
 * part the {@code --server} URL is used; without a tag, {@code latest}.
 */
record ImageReference(URI server, String repository, String tag) {
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");

    static ImageReference parse(String destination, String defaultServer) {
        String rest = destination;
        URI server;
        int scheme = destination.indexOf("://");
        if (scheme > 0) {
            int slash = destination.indexOf('/', scheme + 3);
            if (slash < 0) throw new IllegalArgumentException("destination " + destination + " names no repository");
            server = URI.create(destination.substring(0, slash));
            rest = destination.substring(slash + 1);
        } else {
            server = URI.create(defaultServer.replaceAll("/+$", ""));
        }
        String tag = "latest";
        int colon = rest.lastIndexOf(':');
        if (colon > rest.lastIndexOf('/')) {
            tag = rest.substring(colon + 1);
            rest = rest.substring(0, colon);
        }
        if (!TAG.matcher(tag).matches()) throw new IllegalArgumentException("invalid tag '" + tag + "'");
        String repository = rest;
        RepositoryName name = RepositoryName.parse(repository)
                .orElseThrow(() -> new IllegalArgumentException("invalid repository '" + repository
                        + "': expected <project>/<name> in lowercase letters, digits and separators"));
        if (name.path().isEmpty()) {
            throw new IllegalArgumentException("destination needs <project>/<name>, got only '" + rest + "'");
        }
        return new ImageReference(server, name.text(), tag);
    }

    @Override
    public String toString() {
        return server + "/" + repository + ":" + tag;
    }
}
