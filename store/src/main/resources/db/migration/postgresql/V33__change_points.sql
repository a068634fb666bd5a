-- Stored change points (docs/alerts.md, "Change points"; decision 0056; issue 44). Kept
-- column-for-column identical in both dialects; times are microseconds since the epoch.

-- One change point of one metric (benchmark, measure) on a branch and testbed, found by one
-- change_point threshold. Its commit range: previous_hash (the last commit of the old level,
-- exclusive) to hash (the first commit of the new level, inclusive); start_report_id is the
-- first report of the new level. before/after are the segments' means, change the relative
-- size with its confidence interval [change_low, change_high], p_value Student's t-test's.
-- state: current (the latest judgement still finds it), moved (a later judgement found it a few
-- points away: replaced_by is the change point it became) or withdrawn (a later judgement no
-- longer finds it). alert_id: the alert that raised it, which carries its triage and group.
CREATE TABLE change_point (
    id                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    uuid               TEXT    NOT NULL UNIQUE,
    project_id         BIGINT  NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    threshold_id       BIGINT  NOT NULL REFERENCES threshold (id) ON DELETE CASCADE,
    branch             TEXT    NOT NULL,
    testbed            TEXT    NOT NULL,
    benchmark          TEXT    NOT NULL,
    measure            TEXT    NOT NULL,
    start_report_id    BIGINT  NOT NULL REFERENCES report (id) ON DELETE CASCADE,
    previous_report_id BIGINT  REFERENCES report (id) ON DELETE SET NULL,
    hash               TEXT,
    previous_hash      TEXT,
    start_at           BIGINT  NOT NULL,
    before_mean        DOUBLE PRECISION NOT NULL,
    after_mean         DOUBLE PRECISION NOT NULL,
    change             DOUBLE PRECISION NOT NULL,
    change_low         DOUBLE PRECISION NOT NULL,
    change_high        DOUBLE PRECISION NOT NULL,
    p_value            DOUBLE PRECISION NOT NULL,
    state              TEXT    NOT NULL,
    replaced_by        BIGINT  REFERENCES change_point (id) ON DELETE SET NULL,
    alert_id           BIGINT  REFERENCES alert (id) ON DELETE SET NULL,
    found_report_id    BIGINT  NOT NULL REFERENCES report (id) ON DELETE CASCADE,
    revised_report_id  BIGINT  NOT NULL REFERENCES report (id) ON DELETE CASCADE,
    created            BIGINT  NOT NULL,
    modified           BIGINT  NOT NULL
);
-- One current change point per series and start: a second node revising the same series
-- inserts nothing.
CREATE UNIQUE INDEX index_change_point_current ON change_point
    (threshold_id, branch, testbed, benchmark, measure, start_report_id) WHERE state = 'current';
CREATE INDEX index_change_point_series ON change_point
    (project_id, benchmark, measure, branch, testbed, start_at);
CREATE INDEX index_change_point_project ON change_point (project_id, id DESC);
CREATE INDEX index_change_point_alert ON change_point (alert_id);
