-- Issue 19, flaky-runner quarantine (docs/scheduling.md "Quarantine of flaky runners"). A runner
-- whose infrastructure failures in the sliding window reached the configured threshold is
-- quarantined: the claim skips it until an admin releases it. The counting reads job_attempt, so
-- every node of a cluster sees the same count; these columns hold the decision. Identical in both
-- dialects; times are microseconds since the epoch.
ALTER TABLE runner ADD COLUMN quarantined BIGINT;
ALTER TABLE runner ADD COLUMN quarantine_reason TEXT;
-- When an admin last released it: failures before this do not count again.
ALTER TABLE runner ADD COLUMN quarantine_released BIGINT;
-- The window count reads a runner's recently ended attempts.
CREATE INDEX index_job_attempt_runner_ended ON job_attempt (runner_id, ended);

-- Issue 19, label routing (docs/scheduling.md "Label routing"). A runner's labels, key=value:
-- those the admin set (source 'admin') and those the runner reported in its last ready (source
-- 'runner'); an admin label hides a reported one of the same key. Rows so that the claim can
-- match them in SQL on both dialects.
CREATE TABLE runner_label (
    runner_id INTEGER NOT NULL REFERENCES runner (id) ON DELETE CASCADE,
    source    TEXT NOT NULL,
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (runner_id, source, key)
);
-- A job's labels: required (1: every one must match the claiming runner) or preferred (0: the
-- claim takes jobs whose preferred labels the runner has first, within a priority).
CREATE TABLE job_label (
    job_id   INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    required INTEGER NOT NULL,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (job_id, required, key)
);
