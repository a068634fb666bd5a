package dev.baton.runner.executor;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A running VM seen as the workload's {@link Process}, so that {@link IterativeExecution} drives
 * it like any other: its stdout and stderr are the guest's virtio-serial ports (accepted from
 * Unix sockets the hypervisor connects to at start), its exit value is the one the guest
 * reported on the control port — 137 (as for SIGKILL) when the VM ended without saying, because
 * it was stopped, timed out or crashed. Destroying it kills the hypervisor, and with it the VM.
 */
final class VmProcess extends Process {
    static final int KILLED = 137;

    private final Process hypervisor;
    private final Hypervisor.Vm vm;
    private final InputStream stdout;
    private final InputStream stderr;

    private VmProcess(Process hypervisor, Hypervisor.Vm vm, InputStream stdout, InputStream stderr) {
        this.hypervisor = hypervisor;
        this.vm = vm;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Listens on the VM's stdout and stderr sockets, then starts the hypervisor (its own output goes to {@code log}). */
    static VmProcess start(List<String> command, Hypervisor.Vm vm, Path log) throws IOException {
        Files.deleteIfExists(vm.stdout());
        Files.deleteIfExists(vm.stderr());
        ServerSocketChannel out = listen(vm.stdout());
        ServerSocketChannel err = listen(vm.stderr());
        Process p;
        try {
            p = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(log.toFile())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            out.close();
            err.close();
            throw e;
        }
        // A hypervisor that dies before connecting must not leave the readers waiting on accept.
        p.onExit().thenRun(() -> {
            closeQuietly(out);
            closeQuietly(err);
        });
        return new VmProcess(p, vm, new Accepted(out), new Accepted(err));
    }

    private static ServerSocketChannel listen(Path path) throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(path));
        return s;
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing only to wake a reader
        }
    }

    /** The one connection of a listening socket, accepted on first read; empty if none ever came. */
    private static final class Accepted extends InputStream {
        private final ServerSocketChannel server;
        private InputStream in;

        Accepted(ServerSocketChannel server) {
            this.server = server;
        }

        private InputStream in() throws IOException {
            if (in == null) {
                try {
                    SocketChannel c = server.accept();
                    closeQuietly(server);
                    in = Channels.newInputStream(c);
                } catch (IOException e) {
                    in = InputStream.nullInputStream();
                }
            }
            return in;
        }

        @Override
        public int read() throws IOException {
            return in().read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return in().read(b, off, len);
        }

        @Override
        public void close() throws IOException {
            closeQuietly(server);
            if (in != null) in.close();
        }
    }

    @Override
    public OutputStream getOutputStream() {
        return OutputStream.nullOutputStream();
    }

    @Override
    public InputStream getInputStream() {
        return stdout;
    }

    @Override
    public InputStream getErrorStream() {
        return stderr;
    }

    @Override
    public int waitFor() throws InterruptedException {
        hypervisor.waitFor();
        return exitValue();
    }

    @Override
    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        return hypervisor.waitFor(timeout, unit);
    }

    @Override
    public int exitValue() {
        hypervisor.exitValue(); // throws while running
        return GuestControl.read(vm.control(), List.of(), OutputLimits.DEFAULT)
                .exitCode()
                .orElse(KILLED);
    }

    @Override
    public void destroy() {
        hypervisor.destroy();
    }

    @Override
    public Process destroyForcibly() {
        hypervisor.destroyForcibly();
        return this;
    }

    @Override
    public boolean isAlive() {
        return hypervisor.isAlive();
    }

    @Override
    public long pid() {
        return hypervisor.pid();
    }

    @Override
    public CompletableFuture<Process> onExit() {
        return hypervisor.onExit().thenApply(p -> this);
    }

    @Override
    public ProcessHandle toHandle() {
        return hypervisor.toHandle();
    }
}
