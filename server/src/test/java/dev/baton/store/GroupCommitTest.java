package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The group-commit write path on a real SQLite file: batching, completion after commit, failures kept to their caller. */
class GroupCommitTest {
    @TempDir
    Path dir;

    Jdbi jdbi;
    final AtomicInteger transactions = new AtomicInteger();
    final CountDownLatch firstMayCommit = new CountDownLatch(1);

    @BeforeEach
    void database() {
        jdbi = Jdbi.create("jdbc:sqlite:" + dir.resolve("g.db"));
        jdbi.useHandle(h -> h.execute("CREATE TABLE t (k TEXT PRIMARY KEY)"));
    }

    /** Counts transactions; the first one waits (holding the writer) until the test lets it go. */
    private GroupCommit.Transactions counting() {
        return new GroupCommit.Transactions() {
            @Override
            public <T> T inTransaction(HandleCallback<T, RuntimeException> work) {
                int n = transactions.incrementAndGet();
                return jdbi.inTransaction(h -> {
                    T result = work.withHandle(h);
                    if (n == 1) await(firstMayCommit);
                    return result;
                });
            }
        };
    }

    private int rows() {
        return jdbi.withHandle(h ->
                h.createQuery("SELECT COUNT(*) FROM t").mapTo(Integer.class).one());
    }

    @Test
    void writesQueuedBehindACommitShareTheNextOneAndReturnOnlyAfterIt() throws Exception {
        try (GroupCommit g = new GroupCommit("test", counting(), 1, 64, 100);
                ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> first = pool.submit(() -> g.write(h -> h.execute("INSERT INTO t VALUES ('first')")));
            while (transactions.get() == 0) Thread.onSpinWait();
            List<Future<Integer>> rest = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String k = "k" + i;
                rest.add(pool.submit(() -> g.write(h -> h.execute("INSERT INTO t VALUES (?)", k))));
            }
            while (queued(g) < 20) Thread.onSpinWait();
            assertThat(rest).noneMatch(Future::isDone); // nobody is told before a commit
            firstMayCommit.countDown();
            first.get();
            for (Future<Integer> f : rest) assertThat(f.get()).isEqualTo(1);
        }
        assertThat(rows()).isEqualTo(21);
        assertThat(transactions).hasValue(2); // the first alone, the twenty queued behind it together
    }

    @Test
    void aFailingWriteFailsOnlyItsCallerAndTheOthersAreApplied() throws Exception {
        jdbi.useHandle(h -> h.execute("INSERT INTO t VALUES ('taken')"));
        try (GroupCommit g = new GroupCommit("test", counting(), 1, 64, 100);
                ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> first = pool.submit(() -> g.write(h -> h.execute("INSERT INTO t VALUES ('first')")));
            while (transactions.get() == 0) Thread.onSpinWait();
            Future<Integer> before = pool.submit(() -> g.write(h -> h.execute("INSERT INTO t VALUES ('before')")));
            while (queued(g) < 1) Thread.onSpinWait();
            Future<Integer> failing = pool.submit(() -> g.write(h -> h.execute("INSERT INTO t VALUES ('taken')")));
            while (queued(g) < 2) Thread.onSpinWait();
            Future<Integer> after = pool.submit(() -> g.write(h -> h.execute("INSERT INTO t VALUES ('after')")));
            while (queued(g) < 3) Thread.onSpinWait();
            firstMayCommit.countDown();
            first.get();
            assertThat(before.get()).isEqualTo(1);
            assertThat(after.get()).isEqualTo(1);
            assertThatThrownBy(failing::get).hasRootCauseMessage(rootMessageOfDuplicate());
        }
        assertThat(rows()).isEqualTo(4); // taken, first, before, after
    }

    private String rootMessageOfDuplicate() {
        try {
            jdbi.useHandle(h -> h.execute("INSERT INTO t VALUES ('taken')"));
            throw new AssertionError("expected a unique violation");
        } catch (RuntimeException e) {
            Throwable t = e;
            while (t.getCause() != null) t = t.getCause();
            return t.getMessage();
        }
    }

    @Test
    void aWriteFromInsideABatchJoinsIt() {
        try (GroupCommit g = new GroupCommit("test", jdbiTransactions(), 1, 64, 100)) {
            int rows = g.write(h -> {
                h.execute("INSERT INTO t VALUES ('outer')");
                return g.write(inner -> inner.createQuery("SELECT COUNT(*) FROM t")
                        .mapTo(Integer.class)
                        .one());
            });
            assertThat(rows).isEqualTo(1);
        }
    }

    private GroupCommit.Transactions jdbiTransactions() {
        return new GroupCommit.Transactions() {
            @Override
            public <T> T inTransaction(HandleCallback<T, RuntimeException> work) {
                return jdbi.inTransaction(work);
            }
        };
    }

    private static int queued(GroupCommit g) {
        return g.queued();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
