-- Open Job Spec jobs (issue 15, docs/ojs.md). Kept column-for-column identical to
-- postgresql/V5__ojs.sql. Times are microseconds since the epoch, as everywhere in the schema.

-- One OJS job. The columns are what the store filters and orders by; the rest of the job (args,
-- meta, options, result, error history, timestamps) is the JSON document the binding serves.
-- version makes every change a compare-and-set, so two server nodes never both reserve a job.
CREATE TABLE ojs_job (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    queue TEXT NOT NULL,
    state TEXT NOT NULL,
    priority INTEGER NOT NULL,
    -- scheduled/retryable: when the job becomes available; NULL otherwise.
    run_at INTEGER,
    -- active: the visibility (lease) deadline; NULL otherwise.
    deadline INTEGER,
    worker_id TEXT,
    version INTEGER NOT NULL,
    document TEXT NOT NULL,
    created INTEGER NOT NULL,
    modified INTEGER NOT NULL
);
-- Fetch: available jobs of a queue in priority, then enqueue order.
CREATE INDEX index_ojs_job_queue_state ON ojs_job (queue, state, priority DESC, seq);
-- The sweep: waiting jobs whose time has come and reservations whose deadline has passed.
CREATE INDEX index_ojs_job_run_at ON ojs_job (run_at) WHERE run_at IS NOT NULL;
CREATE INDEX index_ojs_job_deadline ON ojs_job (deadline) WHERE deadline IS NOT NULL;

-- What happened to OJS jobs (GET /ojs/v1/events): type such as job.completed, data JSON.
CREATE TABLE ojs_event (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    queue TEXT NOT NULL,
    job_id TEXT NOT NULL,
    data TEXT NOT NULL,
    created INTEGER NOT NULL
);

-- Paused OJS queues: fetch hands out nothing from them until resumed.
CREATE TABLE ojs_queue (
    name TEXT PRIMARY KEY,
    paused INTEGER NOT NULL
);

-- OJS cron schedules (POST /ojs/v1/cron). next_run is compare-and-set when a schedule fires,
-- so with several server nodes on one database exactly one of them enqueues each run.
CREATE TABLE ojs_cron (
    name TEXT PRIMARY KEY,
    next_run INTEGER NOT NULL,
    version INTEGER NOT NULL,
    document TEXT NOT NULL,
    created INTEGER NOT NULL
);
