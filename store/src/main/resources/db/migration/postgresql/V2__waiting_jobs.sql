-- Why jobs wait and how long they may (issue 10). Kept column-for-column identical to
-- sqlite/V2__waiting_jobs.sql.

-- What the runner said when it declined an attempt: a DeclineCode wire name and its sentence.
ALTER TABLE job_attempt ADD COLUMN decline_code TEXT;
ALTER TABLE job_attempt ADD COLUMN decline_reason TEXT;

-- Optional bound on queueing, in seconds: a spec's applies to jobs submitted without their own.
-- The job keeps the effective value from submission, so editing the spec moves no deadline.
ALTER TABLE spec ADD COLUMN queue_timeout INTEGER;
ALTER TABLE job ADD COLUMN queue_timeout INTEGER;

-- Until when a job declined by every runner of its spec rests (the decline back-off). While it
-- rests, a runner that declined it is not offered it; afterwards only declines since then count.
ALTER TABLE job ADD COLUMN decline_backoff_until BIGINT;

-- A stable code for failures the server decides (queue_timeout, declined); NULL otherwise.
ALTER TABLE job ADD COLUMN error_code TEXT;

-- Queue deadlines are re-armed after a restart from the pending jobs that have one.
CREATE INDEX index_job_pending_queue_timeout ON job (id) WHERE status = 0 AND queue_timeout IS NOT NULL;
-- Recent run times of a spec, for the predicted start of its pending jobs.
CREATE INDEX index_job_spec_finished ON job (spec_id, completed DESC) WHERE status IN (3, 6);
