-- Retries that tell the machine from the job (issue 41, decision 0039). A job's retry policy
-- names the kinds of failure it retries (retry_on: runner_lost, infrastructure, failure, joined
-- by commas) and the exit codes it never retries (final_exit_codes, ascending, joined by commas).
-- A job from before this migration keeps retry_on NULL: its policy is the older form's mapping
-- (infrastructure and failure, plus runner_lost when retry_when_runner_lost), as it behaved.
ALTER TABLE job ADD COLUMN retry_on TEXT;
ALTER TABLE job ADD COLUMN final_exit_codes TEXT;
-- A started attempt that failed keeps its kind (end_reason, a FailureKind wire name), the failing
-- iteration's exit code, and the retry decision: 'retried', or why not (final_exit_code,
-- not_in_retry_on, attempts_exhausted). Attempts that ended otherwise leave them NULL.
ALTER TABLE job_attempt ADD COLUMN end_reason TEXT;
ALTER TABLE job_attempt ADD COLUMN exit_code INTEGER;
ALTER TABLE job_attempt ADD COLUMN retry_decision TEXT;
