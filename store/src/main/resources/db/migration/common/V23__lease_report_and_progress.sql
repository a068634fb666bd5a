-- Transport A (docs/protocol.md, "Transport A"): what a seed-003 runner sends beside its results
-- is kept rather than dropped (issue 40).
-- The runner's account of an attempt from its Complete or CancelAck: {"artifacts": [{"type",
-- "uri"}], "timings": {"started_at", "finished_at"}} as JSON, written once, by the final word that
-- ended the attempt; NULL for attempts over the runner channel and for words that carried neither.
ALTER TABLE job_attempt ADD COLUMN lease_report TEXT;
-- The progress its runner last reported in a Heartbeat ({"percent", "current_step", "step_index",
-- "message"} as JSON), written by the same statement that renews the lease, so a heartbeat still
-- costs one write; shown on the job while it runs.
ALTER TABLE lease_offer ADD COLUMN progress TEXT;
