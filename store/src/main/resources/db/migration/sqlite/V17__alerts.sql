-- Alerts (docs/alerts.md): thresholds, every judged metric with its boundaries, the alerts they
-- raised, branch start points and the git hash of a run. Kept column-for-column identical in
-- both dialects; times are microseconds since the epoch, numbers in a measure's base unit.

-- The git commit a run measured (optional, beside its branch).
ALTER TABLE report ADD COLUMN hash TEXT;

-- A branch created from another: until it has history of its own, its runs are judged against
-- start_branch's history up to start_report (or up to when the start point was set).
CREATE TABLE branch_start_point (
    project_id      INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    branch          TEXT    NOT NULL,
    start_branch    TEXT    NOT NULL,
    start_report_id INTEGER REFERENCES report (id) ON DELETE SET NULL,
    created         INTEGER NOT NULL,
    PRIMARY KEY (project_id, branch)
);

-- Which metrics a project judges and how. branch and benchmark NULL: every one; spec_id NULL:
-- any spec (and direct runs). Deleting keeps the row (deleted set) so that stored boundaries
-- and alerts still say which threshold and model they came from.
CREATE TABLE threshold (
    id             INTEGER PRIMARY KEY,
    uuid           TEXT    NOT NULL UNIQUE,
    project_id     INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    branch         TEXT,
    testbed        TEXT    NOT NULL,
    spec_id        INTEGER REFERENCES spec (id) ON DELETE CASCADE,
    measure        TEXT    NOT NULL,
    benchmark      TEXT,
    model          TEXT    NOT NULL,
    lower_boundary REAL,
    upper_boundary REAL,
    max_samples    INTEGER,
    max_days       INTEGER,
    min_samples    INTEGER NOT NULL,
    created        INTEGER NOT NULL,
    modified       INTEGER NOT NULL,
    deleted        INTEGER
);
CREATE INDEX index_threshold_project ON threshold (project_id, testbed, measure) WHERE deleted IS NULL;

-- The judging sweep looks at recently processed reports only (docs/alerts.md, "Judging").
CREATE INDEX index_report_modified ON report (modified);

-- A report is judged once: this row is written in the same transaction as its metrics and
-- alerts, and a second judge (another node, a restart) finds it and writes nothing.
CREATE TABLE report_judgement (
    report_id INTEGER PRIMARY KEY REFERENCES report (id) ON DELETE CASCADE,
    judged    INTEGER NOT NULL
);

-- One merged metric of a judged report: the history a baseline is read from.
CREATE TABLE metric (
    id         INTEGER PRIMARY KEY,
    report_id  INTEGER NOT NULL REFERENCES report (id) ON DELETE CASCADE,
    project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    branch     TEXT    NOT NULL,
    testbed    TEXT    NOT NULL,
    spec_id    INTEGER,
    hash       TEXT,
    benchmark  TEXT    NOT NULL,
    measure    TEXT    NOT NULL,
    value      REAL NOT NULL,
    -- the report's end time: the order of the history
    at         INTEGER NOT NULL,
    UNIQUE (report_id, benchmark, measure)
);
-- A baseline: one metric's newest values on a branch, in the order of the query (at, then id),
-- so that LIMIT stops after the window instead of sorting the whole history.
CREATE INDEX index_metric_history ON metric (project_id, branch, testbed, benchmark, measure, at DESC, id DESC);
-- A metric's history page (GET /v0/projects/{p}/metrics), newest first by id.
CREATE INDEX index_metric_series ON metric (project_id, benchmark, measure, id DESC);

-- What one threshold made of one metric: the limits (NULL: that side not set, or the baseline
-- was smaller than the threshold's minimum) and the baseline they came from.
CREATE TABLE metric_boundary (
    metric_id       INTEGER NOT NULL REFERENCES metric (id) ON DELETE CASCADE,
    threshold_id    INTEGER NOT NULL REFERENCES threshold (id) ON DELETE CASCADE,
    model           TEXT    NOT NULL,
    lower_limit     REAL,
    upper_limit     REAL,
    baseline_size   INTEGER NOT NULL,
    baseline_mean   REAL,
    baseline_stddev REAL,
    PRIMARY KEY (metric_id, threshold_id)
);

-- A metric outside a boundary. status: 'active' or 'dismissed'.
CREATE TABLE alert (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT    NOT NULL UNIQUE,
    project_id      INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    report_id       INTEGER NOT NULL REFERENCES report (id) ON DELETE CASCADE,
    metric_id       INTEGER NOT NULL REFERENCES metric (id) ON DELETE CASCADE,
    threshold_id    INTEGER NOT NULL REFERENCES threshold (id) ON DELETE CASCADE,
    side            TEXT    NOT NULL,
    value           REAL NOT NULL,
    limit_value     REAL NOT NULL,
    baseline_size   INTEGER NOT NULL,
    baseline_mean   REAL,
    baseline_stddev REAL,
    status          TEXT    NOT NULL,
    created         INTEGER NOT NULL,
    modified        INTEGER NOT NULL,
    UNIQUE (metric_id, threshold_id, side)
);
CREATE INDEX index_alert_project ON alert (project_id, created DESC, id DESC);
CREATE INDEX index_alert_report ON alert (report_id);

-- Where a project's new alerts are sent (docs/alerts.md, "Webhooks"). The secret signs each body
-- (HMAC-SHA256); it is shown once, when the webhook is created.
CREATE TABLE webhook (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT    NOT NULL UNIQUE,
    project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    url        TEXT    NOT NULL,
    secret     TEXT    NOT NULL,
    created    INTEGER NOT NULL,
    deleted    INTEGER
);
CREATE INDEX index_webhook_project ON webhook (project_id) WHERE deleted IS NULL;

-- The outbox: one row per alert and webhook, written in the judgement's transaction, so a node
-- that dies after the commit loses no delivery. next_attempt is when it is due (NULL: done,
-- delivered or given up); a sender moves it forward before sending, so one node sends at a time.
CREATE TABLE webhook_delivery (
    id           INTEGER PRIMARY KEY,
    webhook_id   INTEGER NOT NULL REFERENCES webhook (id) ON DELETE CASCADE,
    alert_id     INTEGER NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
    attempts     INTEGER NOT NULL,
    next_attempt INTEGER,
    delivered    INTEGER,
    last_status  INTEGER,
    last_error   TEXT,
    created      INTEGER NOT NULL,
    UNIQUE (webhook_id, alert_id)
);
CREATE INDEX index_webhook_delivery_due ON webhook_delivery (next_attempt) WHERE next_attempt IS NOT NULL;
