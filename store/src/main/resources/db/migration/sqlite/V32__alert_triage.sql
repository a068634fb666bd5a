-- Triage and groups of alerts (docs/alerts.md, "Triage and groups"; decision 0049; issue 44).
-- Kept column-for-column identical in both dialects; times are microseconds since the epoch.

-- A group: the alerts one report's judgement raised, across all its metrics. One project,
-- branch and testbed, one commit range: previous_hash (the commit of the newest report judged
-- before it on the same branch and testbed, exclusive; NULL when unknown) to hash (inclusive).
CREATE TABLE alert_group (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT    NOT NULL UNIQUE,
    project_id    INTEGER  NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    report_id     INTEGER  NOT NULL UNIQUE REFERENCES report (id) ON DELETE CASCADE,
    branch        TEXT    NOT NULL,
    testbed       TEXT    NOT NULL,
    hash          TEXT,
    previous_hash TEXT,
    created       INTEGER  NOT NULL
);
CREATE INDEX index_alert_group_project ON alert_group (project_id, id DESC);

-- Each alert's triage: untriaged (the default), acknowledged, expected, culprit (with the
-- commit), false_positive; the note, who set it (the audit log's actor) and when.
ALTER TABLE alert ADD COLUMN group_id INTEGER REFERENCES alert_group (id) ON DELETE CASCADE;
ALTER TABLE alert ADD COLUMN triage TEXT NOT NULL DEFAULT 'untriaged';
ALTER TABLE alert ADD COLUMN triage_note TEXT;
ALTER TABLE alert ADD COLUMN triage_commit TEXT;
ALTER TABLE alert ADD COLUMN triaged_by TEXT;
ALTER TABLE alert ADD COLUMN triaged_at INTEGER;
CREATE INDEX index_alert_group_member ON alert (group_id);

-- Alerts raised before this version: one group per report, which takes the report's uuid (a
-- group's uuid is only looked up among groups); their commit range's start is not known.
INSERT INTO alert_group (uuid, project_id, report_id, branch, testbed, hash, previous_hash, created)
SELECT r.uuid, a.project_id, a.report_id, m.branch, m.testbed, m.hash, NULL, MIN(a.created)
FROM alert a JOIN report r ON r.id = a.report_id JOIN metric m ON m.id = a.metric_id
GROUP BY r.uuid, a.project_id, a.report_id, m.branch, m.testbed, m.hash;
UPDATE alert SET group_id = (SELECT g.id FROM alert_group g WHERE g.report_id = alert.report_id);
