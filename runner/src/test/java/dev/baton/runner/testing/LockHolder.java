package dev.baton.runner.testing;

import dev.baton.runner.WorkDirLock;
import java.nio.file.Path;

/** A separate process that takes a work directory's lock, says so, and holds it until killed or its stdin closes. */
public final class LockHolder {
    public static void main(String[] args) throws Exception {
        try (WorkDirLock lock = WorkDirLock.acquire(Path.of(args[0]))) {
            System.out.println("locked " + ProcessHandle.current().pid());
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold
            }
        }
    }
}
