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
