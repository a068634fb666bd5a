package dev.baton.runner.update;

import dev.baton.protocol.message.ServerMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces the agent's jar with the version the server names: downloads next to the jar (same
 * file system, so the final rename is atomic), bounded in size, verifies the SHA-256, checks it
 * is a jar, then renames it over the old one. Any failure deletes the download and leaves the
 * running jar as it was. The caller restarts the agent afterwards.
 */
public final class SelfUpdater implements Updater {
    private static final Logger log = LoggerFactory.getLogger(SelfUpdater.class);
    private static final Pattern SHA256 = Pattern.compile("(sha256:)?[0-9a-f]{64}");

    private final Supplier<HttpClient> http;
    private final Path jar;
    private final long maxBytes;

    public SelfUpdater(HttpClient http, Path jar, long maxBytes) {
        this(() -> http, jar, maxBytes);
    }

    /**
     * With a client made only when an update comes: every JDK HttpClient keeps a selector thread
     * that wakes every 3 s even with no connection, which an agent at rest should not pay for one
     * it rarely uses (issue 45, decision 0051).
     */
    public SelfUpdater(Supplier<HttpClient> http, Path jar, long maxBytes) {
        this.http = http;
        this.jar = jar;
        this.maxBytes = maxBytes;
    }

    /** The jar this class was loaded from, if it was loaded from a jar. */
    public static Optional<Path> runningJar() {
        try {
            var source = SelfUpdater.class.getProtectionDomain().getCodeSource();
            if (source == null) return Optional.empty();
            Path p = Path.of(source.getLocation().toURI());
            return p.toString().endsWith(".jar") && Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    @Override
    public void install(ServerMessage.Update update) throws UpdateException {
        String expected = update.checksum() == null ? "" : update.checksum().toLowerCase(Locale.ROOT);
        if (!SHA256.matcher(expected).matches())
            throw new UpdateException("checksum must be a SHA-256 in hex, got '" + update.checksum() + "'");
        expected = expected.replaceFirst("^sha256:", "");
        URI url;
        try {
            url = URI.create(update.url());
            if (!"https".equals(url.getScheme()) && !"http".equals(url.getScheme()))
                throw new IllegalArgumentException("not http(s)");
        } catch (RuntimeException e) {
            throw new UpdateException("update url is not an http(s) URL: " + update.url());
        }
        Path tmp = jar.resolveSibling(
                "." + jar.getFileName() + ".update-" + ProcessHandle.current().pid() + ".tmp");
        try {
            String actual = download(url, tmp);
            if (!actual.equals(expected)) {
                throw new UpdateException("checksum mismatch for version " + update.version() + ": expected " + expected
                        + ", downloaded " + actual);
            }
            if (!isJar(tmp))
                throw new UpdateException("the download for version " + update.version() + " is not a jar");
            try {
                Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(jar));
            } catch (IOException e) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            } catch (UnsupportedOperationException e) {
                // Not a POSIX file system: the new jar keeps the directory's default permissions.
            }
            Files.move(tmp, jar, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            log.info("installed version {} at {}", update.version(), jar);
        } catch (IOException e) {
            throw new UpdateException("update to " + update.version() + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UpdateException("update interrupted");
        } finally {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException e) {
                log.warn("cannot delete {}", tmp);
            }
        }
    }

    private String download(URI url, Path tmp) throws IOException, InterruptedException, UpdateException {
        HttpRequest request =
                HttpRequest.newBuilder(url).timeout(Duration.ofMinutes(5)).GET().build();
        HttpResponse<InputStream> response = http.get().send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = response.body()) {
            if (response.statusCode() != 200)
                throw new UpdateException("download of " + url + " answered HTTP " + response.statusCode());
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            long total = 0;
            byte[] buf = new byte[65536];
            try (OutputStream out = Files.newOutputStream(tmp)) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    total += n;
                    if (total > maxBytes) throw new UpdateException("download is larger than " + maxBytes + " bytes");
                    sha.update(buf, 0, n);
                    out.write(buf, 0, n);
                }
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean isJar(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
        }
    }
}
