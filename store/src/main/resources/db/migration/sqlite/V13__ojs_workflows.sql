-- Open Job Spec levels 3 and 4 and the graceful-shutdown extension (issue 15, docs/ojs.md).
-- Kept column-for-column identical to postgresql/V13__ojs_workflows.sql. Times are microseconds since
-- the epoch, as everywhere in the schema.

-- A workflow (POST /ojs/v1/workflows): a chain, a group or a batch. Its steps, the ids of the jobs
-- made for them and its callbacks are the JSON document; version makes every advance a
-- compare-and-set, written in one transaction with the jobs the advance enqueues, so two server
-- nodes never both advance one workflow.
CREATE TABLE ojs_workflow (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    version INTEGER NOT NULL,
    document TEXT NOT NULL,
    created BIGINT NOT NULL,
    modified BIGINT NOT NULL
);
-- The sweep looks for running workflows whose jobs finished without advancing them (a node that
-- stopped between a job's ack and the advance).
CREATE INDEX index_ojs_workflow_state ON ojs_workflow (state);

-- Unique jobs (options.unique): the key the job's unique policy computed; NULL without one.
ALTER TABLE ojs_job ADD COLUMN unique_key TEXT;
CREATE INDEX index_ojs_job_unique_key ON ojs_job (unique_key) WHERE unique_key IS NOT NULL;
-- One row per unique key ever pushed: a push upserts it first, which on PostgreSQL row-locks the
-- key until the push commits, so two nodes pushing one unique job at once check one after the other.
CREATE TABLE ojs_unique (
    key TEXT PRIMARY KEY,
    touched BIGINT NOT NULL
);

-- Rate limits (options.rate_limit): at most rate_max jobs handed out per rate_window_ms, counted in
-- fixed windows (window_start, window_count), changed by conditional single-row updates.
ALTER TABLE ojs_queue ADD COLUMN rate_max INTEGER;
ALTER TABLE ojs_queue ADD COLUMN rate_window_ms BIGINT;
ALTER TABLE ojs_queue ADD COLUMN window_start BIGINT;
ALTER TABLE ojs_queue ADD COLUMN window_count INTEGER NOT NULL DEFAULT 0;

-- OJS workers as their last beat described them (POST /ojs/v1/workers/beat): a draining worker
-- is handed no new jobs, and its health answers draining.
CREATE TABLE ojs_worker (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    last_beat BIGINT NOT NULL,
    document TEXT NOT NULL
);
