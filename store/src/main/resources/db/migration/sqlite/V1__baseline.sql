-- Baton schema, SQLite dialect. Kept column-for-column identical to postgresql/V1__baseline.sql
-- so one store implementation's SQL runs on both. Times are INTEGER microseconds since the
-- epoch (UTC) on both dialects: identical comparison and ordering semantics, no time zones.
-- Status, priority, plan and attempt outcome are the stable integer codes of the Java enums.

CREATE TABLE organization (
    id       INTEGER PRIMARY KEY,
    uuid     TEXT    NOT NULL UNIQUE,
    name     TEXT    NOT NULL,
    slug     TEXT    NOT NULL UNIQUE,
    -- PlanTier priority: 300 enterprise, 200 team, 100 free, 0 unclaimed
    plan     INTEGER NOT NULL,
    created  INTEGER NOT NULL,
    modified INTEGER NOT NULL
);

CREATE TABLE project (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT    NOT NULL UNIQUE,
    organization_id INTEGER NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
    name            TEXT    NOT NULL,
    slug            TEXT    NOT NULL UNIQUE,
    created         INTEGER NOT NULL,
    modified        INTEGER NOT NULL
);
CREATE INDEX index_project_organization_id ON project (organization_id);

CREATE TABLE runner (
    id             INTEGER PRIMARY KEY,
    uuid           TEXT    NOT NULL UNIQUE,
    name           TEXT    NOT NULL,
    slug           TEXT    NOT NULL UNIQUE,
    -- SHA-256 of the runner key, 64 lowercase hex; the key itself is never stored
    token_hash     TEXT    NOT NULL,
    last_heartbeat INTEGER,
    created        INTEGER NOT NULL,
    modified       INTEGER NOT NULL,
    archived       INTEGER
);
CREATE INDEX index_runner_token_hash ON runner (token_hash);

CREATE TABLE spec (
    id           INTEGER PRIMARY KEY,
    uuid         TEXT    NOT NULL UNIQUE,
    name         TEXT    NOT NULL,
    slug         TEXT    NOT NULL UNIQUE,
    architecture TEXT    NOT NULL,
    cpu          INTEGER NOT NULL,
    memory       INTEGER NOT NULL,
    disk         INTEGER NOT NULL,
    network      BOOLEAN NOT NULL DEFAULT FALSE,
    created      INTEGER NOT NULL,
    modified     INTEGER NOT NULL,
    archived     INTEGER
);

CREATE TABLE runner_spec (
    id        INTEGER PRIMARY KEY,
    runner_id INTEGER NOT NULL REFERENCES runner (id) ON DELETE CASCADE,
    spec_id   INTEGER NOT NULL REFERENCES spec (id) ON DELETE RESTRICT,
    UNIQUE (runner_id, spec_id)
);
CREATE INDEX index_runner_spec_spec_id ON runner_spec (spec_id);

CREATE TABLE report (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT    NOT NULL UNIQUE,
    project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    branch     TEXT,
    testbed    TEXT,
    adapter    TEXT,
    start_time INTEGER NOT NULL,
    end_time   INTEGER NOT NULL,
    results    TEXT,
    error      TEXT,
    created    INTEGER NOT NULL,
    modified   INTEGER NOT NULL
);
CREATE INDEX index_report_project_id ON report (project_id);

CREATE TABLE job (
    id                     INTEGER PRIMARY KEY,
    uuid                   TEXT    NOT NULL UNIQUE,
    report_id              INTEGER NOT NULL REFERENCES report (id) ON DELETE CASCADE,
    project_id             INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    organization_id        INTEGER NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
    source_ip              TEXT    NOT NULL,
    spec_id                INTEGER NOT NULL REFERENCES spec (id) ON DELETE RESTRICT,
    config                 TEXT    NOT NULL,
    timeout                INTEGER NOT NULL,
    priority               INTEGER NOT NULL,
    status                 INTEGER NOT NULL,
    runner_id              INTEGER REFERENCES runner (id) ON DELETE RESTRICT,
    -- fencing token of the current attempt; NULL while pending
    lease                  TEXT,
    attempt                INTEGER NOT NULL DEFAULT 0,
    requeues               INTEGER NOT NULL DEFAULT 0,
    max_attempts           INTEGER NOT NULL DEFAULT 1,
    backoff_seconds        INTEGER NOT NULL DEFAULT 0,
    retry_when_runner_lost BOOLEAN NOT NULL DEFAULT FALSE,
    -- a retried job is not claimable before this time (backoff); NULL = at once
    not_before             INTEGER,
    claimed                INTEGER,
    started                INTEGER,
    completed              INTEGER,
    last_heartbeat         INTEGER,
    last_billed_minute     INTEGER,
    error                  TEXT,
    created                INTEGER NOT NULL,
    modified               INTEGER NOT NULL
);
-- Leads with spec_id (brief §3): a claim reads only its specs' pending rows, in claim order.
CREATE INDEX index_job_pending ON job (spec_id, priority DESC, created ASC, id ASC) WHERE status = 0;
CREATE INDEX index_job_org_in_flight ON job (organization_id) WHERE status IN (1, 2);
CREATE INDEX index_job_source_ip_in_flight ON job (source_ip) WHERE status IN (1, 2);
CREATE INDEX index_job_in_flight ON job (status) WHERE status IN (1, 2);
CREATE INDEX index_job_runner_id ON job (runner_id) WHERE runner_id IS NOT NULL;
CREATE INDEX index_job_spec_id ON job (spec_id);
CREATE INDEX index_job_report_id ON job (report_id);
CREATE INDEX index_job_project_id ON job (project_id, created DESC, id DESC);
CREATE INDEX index_job_completed_unprocessed ON job (id) WHERE status = 3;

CREATE TABLE job_attempt (
    id        INTEGER PRIMARY KEY,
    job_id    INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    number    INTEGER NOT NULL,
    lease     TEXT    NOT NULL,
    runner_id INTEGER NOT NULL REFERENCES runner (id) ON DELETE RESTRICT,
    claimed   INTEGER NOT NULL,
    started   INTEGER,
    ended     INTEGER,
    -- AttemptOutcome code; NULL while the attempt is open
    outcome   INTEGER,
    UNIQUE (job_id, number)
);
-- "Has this runner declined this job?" is asked per candidate on every claim.
CREATE INDEX index_job_attempt_declined ON job_attempt (job_id, runner_id) WHERE outcome = 3;
