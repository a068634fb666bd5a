package dev.baton.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One real {@code baton} process (a server node or a runner agent) started from the
 * distribution's launcher, which execs the JVM: the pid the driver signals is the JVM's. Its
 * output is appended to one log across restarts.
 */
final class BatonProcess {
    private final String name;
    private final Path launcher;
    private final List<String> args;
    private final Map<String, String> env;
    private final Path log;
    private Process process;
    private boolean stopped;

    BatonProcess(String name, Path install, List<String> args, Map<String, String> env, Path log) {
        this.name = name;
        this.launcher = install.resolve("bin/baton");
        this.args = List.copyOf(args);
        this.env = Map.copyOf(env);
        this.log = log;
    }

    String name() {
        return name;
    }

    Path log() {
        return log;
    }

    synchronized void start() throws IOException {
        if (process != null && process.isAlive()) throw new IllegalStateException(name + " is already running");
        List<String> command = new ArrayList<>();
        command.add(launcher.toString());
        command.addAll(args);
        Files.writeString(
                log,
                "---- chaos: start " + String.join(" ", args) + "\n",
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().keySet().removeIf(k -> k.startsWith("BATON_"));
        pb.environment().putAll(env);
        process = pb.start();
        stopped = false;
    }

    synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    synchronized boolean stopped() {
        return stopped;
    }

    /** SIGKILL, and waits until the process is gone (the kernel has released its port and locks). */
    synchronized void kill() throws InterruptedException {
        if (process == null) return;
        process.destroyForcibly(); // SIGKILL on Linux
        process.waitFor(30, TimeUnit.SECONDS);
        stopped = false;
    }

    /** SIGSTOP: the JVM freezes; its sockets stay open, so only the server's timers notice. */
    synchronized void freeze() throws IOException, InterruptedException {
        signal("STOP");
        stopped = true;
    }

    synchronized void thaw() throws IOException, InterruptedException {
        signal("CONT");
        stopped = false;
    }

    private void signal(String sig) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) return;
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) throw new IOException("kill -" + sig + " " + process.pid() + " failed");
    }

    /** SIGTERM (after SIGCONT, so a frozen process can act on it), then SIGKILL after {@code seconds}. */
    synchronized void terminate(int seconds) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) return;
        if (stopped) thaw();
        process.destroy();
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) kill();
    }
}
