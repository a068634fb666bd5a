package dev.baton.bench;

import dev.baton.store.Job;
import dev.baton.store.Store;
import dev.baton.store.Transition;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's store, wrapped to count what the benchmark needs without touching server code:
 * write calls (each one a write transaction on both dialects, so "database writes per second" on
 * SQLite, where no server-side counter exists), rows in the batched heartbeat writes, and jobs
 * that reached {@code processed} (the end of the lifecycle, which the server applies on a
 * background thread after acking {@code completed}), and read calls (each one a query or more, a
 * round trip on PostgreSQL) apart from the lookups the store serves from memory after the first
 * read ({@code projectUuid}, {@code reportFormat}, {@code findSpec}), which are counted as
 * cached.
 *
 * <p>The wrapper is a dynamic proxy of {@link Store} ({@link #store()}) and of each of its parts
 * named in {@link #PARTS} ({@code runs()}, {@code nodes()}, …): every method is counted by its
 * name as a write, a read, a cached lookup or passed through ({@link #WRITES}, {@link #READS},
 * {@link #CACHED}, {@link #PASSED}). A default method of none of these runs its own body on the
 * proxy, so the methods it calls are counted. An abstract method the tables do not name fails at
 * its first call; {@code CountingStoreTest} checks every one is named.
 */
final class CountingStore {
    /** Told about every applied completed → processed transition. */
    interface ProcessedListener {
        void onProcessed();
    }

    /** Not reads: claim transactions, and those that claimed no job, listed with the reads by method (printed per job). */
    static final String CLAIMS = "claimEach (write)";

    static final String EMPTY_CLAIMS = "claimEach (write, empty)";

    static final Set<String> WRITES = Set.of(
            "addRunnerSpec",
            "attachRunner",
            "billMinutes",
            "cancel",
            "claimEach",
            "clearCancelDeadline",
            "complete",
            "createOrganization",
            "createProject",
            "addMachine",
            "createEphemeralRunner",
            "createPool",
            "deletePool",
            "moveMachine",
            "recordNoise",
            "setBackoff",
            "setProviderId",
            "takeCalibrationLease",
            "takeScalerLease",
            "updatePool",
            "createReport",
            "createRun",
            "createRunAndClaim",
            "createRunner",
            "createSchedule",
            "createSpec",
            "deleteSchedule",
            "deleteSpec",
            "detachRunner",
            "expireQueued",
            "extendAcceptance",
            "fail",
            "markRunnerLost",
            "process",
            "quarantineIfFlaky",
            "reattach",
            "recordAdapterError",
            "recordAttemptMachine",
            "recordFingerprint",
            "recordJobHeartbeats",
            "recordLiveness",
            "recordMachine",
            "recordRunnerHeartbeats",
            "registerNode",
            "releaseRunner",
            "removeRunnerSpec",
            "requeue",
            "rotateRunnerKey",
            "setPlan",
            "setRunnerLabels",
            "setSpecQueueTimeout",
            "setSpecMaxNoise",
            "setSpecRequireCleanFingerprint",
            "start",
            "stopNode",
            "updateRunner",
            "updateSchedule",
            "updateSpec");
    static final Set<String> READS = Set.of(
            "attemptEnds",
            "attemptMachines",
            "attemptOutput",
            "attempts",
            "authenticateRunner",
            "billedMinutes",
            "clusterCounts",
            "completedUnprocessedJobs",
            "countRegistryUploads",
            "dueSchedules",
            "expireNodes",
            "findAttempt",
            "findJob",
            "findJobOfReport",
            "findOrganization",
            "findProject",
            "findRegistryUpload",
            "findReport",
            "findRunner",
            "findSchedule",
            "findSpec",
            "hasPendingFor",
            "holdsAttempt",
            "idleRegistryUploads",
            "inFlightJobs",
            "findPool",
            "idleRunners",
            "isSpent",
            "poolRunner",
            "waitingJobs",
            "listPools",
            "liveMachines",
            "machines",
            "jobLabels",
            "jobUuid",
            "latestMachine",
            "latestMachines",
            "listJobs",
            "listNodes",
            "listOrganizations",
            "listProjects",
            "listRunners",
            "listSchedules",
            "listSpecs",
            "liveNodeUrl",
            "nextImage",
            "noiseHistories",
            "noiseHistory",
            "pendingFacts",
            "pendingJobs",
            "pendingJobsWithQueueTimeout",
            "retryPolicy",
            "runnerLabels",
            "runnerNode",
            "runnerSpecs",
            "runnersOn");
    /** Served from memory after the first read ({@code findSpec} by id, slug or uuid since issue 46, counted apart). */
    static final Set<String> CACHED = Set.of("projectUuid", "reportFormat");
    /** Neither written nor read here: the store's parts counted elsewhere or not at all, listeners, life cycle. */
    static final Set<String> PASSED = Set.of(
            "access",
            "advanceRegistryUpload",
            "advertiseNode",
            "alerts",
            "close",
            "createRegistryUpload",
            "deleteRegistryUpload",
            "leaseOffers",
            "ojs",
            "onSpecsChange",
            "rolls",
            "specsChangedElsewhere",
            "sweepDue");
    /** The store's parts whose methods are counted as the store's own are (each part a proxy of its interface). */
    static final Set<String> PARTS = Set.of(
            "claims",
            "liveness",
            "nodes",
            "noise",
            "organizations",
            "pools",
            "runners",
            "runs",
            "schedules",
            "specs",
            "transitions",
            "uploads");
    /** Batched last_heartbeat writes, whose rows are counted. */
    private static final Set<String> HEARTBEAT_BATCHES =
            Set.of("recordRunnerHeartbeats", "recordJobHeartbeats", "recordLiveness");

    private final Store delegate;
    private final Store proxy;
    private final LongAdder writes = new LongAdder();
    private final LongAdder heartbeatRows = new LongAdder();
    private final Map<String, LongAdder> writesByMethod = new ConcurrentHashMap<>();
    private final LongAdder reads = new LongAdder();
    private final Map<String, LongAdder> readsByMethod = new ConcurrentHashMap<>();
    private final LongAdder cached = new LongAdder();
    private final ProcessedListener processed;

    CountingStore(Store delegate, ProcessedListener processed) {
        this.delegate = delegate;
        this.processed = processed;
        this.proxy = (Store) Proxy.newProxyInstance(
                Store.class.getClassLoader(), new Class<?>[] {Store.class}, new Counting(delegate));
    }

    /** The counting store, to hand to the server. */
    Store store() {
        return proxy;
    }

    /** Write calls so far (each is one transaction). */
    long writes() {
        return writes.sum();
    }

    /** Write calls so far per Store method, for saying which writes a phase made. */
    Map<String, Long> writesByMethod() {
        return sums(writesByMethod);
    }

    /** Read calls so far that reach the database (cached lookups not included). */
    long reads() {
        return reads.sum();
    }

    /** Read calls so far per Store method, cached lookups under their own name with " (cached)". */
    Map<String, Long> readsByMethod() {
        return sums(readsByMethod);
    }

    /** Lookups the store serves from memory after their first read. */
    long cachedLookups() {
        return cached.sum();
    }

    /** Rows passed to the batched last_heartbeat writes so far. */
    long heartbeatRows() {
        return heartbeatRows.sum();
    }

    private static Map<String, Long> sums(Map<String, LongAdder> counts) {
        Map<String, Long> m = new TreeMap<>();
        counts.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    private static void count(Map<String, LongAdder> byMethod, String key) {
        byMethod.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    /** Counts the calls to {@code target}: the store, or one of its {@link #PARTS}. */
    private final class Counting implements InvocationHandler {
        private final Object target;
        private final Map<String, Object> parts = new ConcurrentHashMap<>();

        Counting(Object target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object self, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (method.getDeclaringClass() == Object.class) return objectMethod(self, method, args);
            if (target == delegate && PARTS.contains(name) && method.getParameterCount() == 0) {
                Object part = parts.get(name);
                if (part == null) {
                    Class<?> type = method.getReturnType();
                    part = Proxy.newProxyInstance(
                            type.getClassLoader(), new Class<?>[] {type}, new Counting(forward(method, args)));
                    Object raced = parts.putIfAbsent(name, part);
                    if (raced != null) part = raced;
                }
                return part;
            }
            if (CACHED.contains(name) || name.equals("findSpec")) {
                cached.increment();
                count(readsByMethod, name + " (cached)");
            } else if (WRITES.contains(name)) {
                writes.increment();
                count(writesByMethod, name);
                if (HEARTBEAT_BATCHES.contains(name)) heartbeatRows.add(heartbeatRows(name, args));
            } else if (READS.contains(name)) {
                reads.increment();
                count(readsByMethod, name);
            } else if (!PASSED.contains(name)) {
                if (method.isDefault()) return InvocationHandler.invokeDefault(self, method, args);
                throw new IllegalStateException("CountingStore does not say how to count "
                        + method.getDeclaringClass().getSimpleName() + "." + name);
            }
            Object result = forward(method, args);
            if (name.equals("claimEach")) countClaims(result);
            if (name.equals("process") && ((Transition) result).applied()) processed.onProcessed();
            return result;
        }

        private Object forward(Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        /** Beside the reads by method but not counted as reads: how many claims (writes) found no job at all. */
        @SuppressWarnings("unchecked")
        private void countClaims(Object claimed) {
            count(readsByMethod, CLAIMS);
            if (((List<List<Job>>) claimed).stream().allMatch(List::isEmpty)) count(readsByMethod, EMPTY_CLAIMS);
        }

        private static int heartbeatRows(String name, Object[] args) {
            if (name.equals("recordLiveness")) return ((Map<?, ?>) args[2]).size() + ((Map<?, ?>) args[3]).size();
            return ((Map<?, ?>) args[0]).size();
        }

        private Object objectMethod(Object self, Method method, Object[] args) {
            return switch (method.getName()) {
                case "equals" -> self == args[0];
                case "hashCode" -> System.identityHashCode(self);
                default -> "CountingStore(" + delegate + ")";
            };
        }
    }
}
