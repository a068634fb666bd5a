-- Issue 19, image affinity (docs/scheduling.md "Image affinity"): whether the runner that claimed
-- an attempt reported holding the job's image at the claim (1 warm, 0 cold), NULL when it reported
-- no images (older runners, executors without an image cache) or for attempts before this column.
ALTER TABLE job_attempt ADD COLUMN warm INTEGER;

-- Issue 19, the canary of a quarantine (docs/scheduling.md "Canary release"): a job the admin
-- submits for one quarantined runner. Only that runner may claim it (even while quarantined, and
-- no other runner may); when it completes with every iteration exiting 0 the quarantine lifts.
ALTER TABLE job ADD COLUMN canary_runner_id BIGINT;
