-- Runner pools that follow the queue (issue 43; docs/runner.md "Single-job runners" and "Pools",
-- decision 0046).

-- A single-job runner takes one attempt and is spent once that attempt ended: its key is refused
-- from then on. bound_job_id: the job it was started for (it takes no other). On the job,
-- bound_runner_id reserves it for that runner while the runner is live and unspent.
ALTER TABLE runner ADD COLUMN ephemeral INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runner ADD COLUMN bound_job_id INTEGER;
ALTER TABLE job ADD COLUMN bound_runner_id INTEGER;

CREATE TABLE pool (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT    NOT NULL UNIQUE,
    slug            TEXT    NOT NULL UNIQUE,
    spec_id         INTEGER  NOT NULL REFERENCES spec (id),
    -- JSON object of the labels its runners report (and jobs may require); {} for none
    labels          TEXT    NOT NULL,
    min_idle        INTEGER NOT NULL,
    max_machines    INTEGER NOT NULL,
    -- seconds
    idle_timeout    INTEGER NOT NULL,
    boot_timeout    INTEGER NOT NULL,
    -- process, exec (microvm: not built)
    provider        TEXT    NOT NULL,
    -- JSON object, the provider's own settings
    provider_config TEXT    NOT NULL,
    -- a failing provider backs off until then; reason says why (shown on the pool and on waiting jobs)
    backoff_until   INTEGER,
    reason          TEXT,
    failed_starts   INTEGER NOT NULL DEFAULT 0,
    created         INTEGER  NOT NULL,
    modified        INTEGER  NOT NULL
);

CREATE TABLE pool_machine (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT    NOT NULL UNIQUE,
    pool_id     INTEGER  NOT NULL REFERENCES pool (id) ON DELETE CASCADE,
    -- starting, idle, busy, stopping, stopped or failed
    state       TEXT    NOT NULL,
    -- what the provider calls it (a PID, an instance id); NULL until its start returned
    provider_id TEXT,
    runner_id   INTEGER,
    job_id      INTEGER,
    -- the node that started it (a restarted node adopts or stops what a dead one left)
    node        TEXT,
    reason      TEXT,
    started     INTEGER  NOT NULL,
    registered  INTEGER,
    idle_since  INTEGER,
    ended       INTEGER,
    modified    INTEGER  NOT NULL
);
CREATE INDEX index_pool_machine_live ON pool_machine (pool_id, state) WHERE ended IS NULL;

-- One scaler across server nodes: the node holding this row until expires decides for every pool.
CREATE TABLE pool_scaler_lease (
    name    TEXT    PRIMARY KEY,
    node    TEXT    NOT NULL,
    expires INTEGER  NOT NULL
);
