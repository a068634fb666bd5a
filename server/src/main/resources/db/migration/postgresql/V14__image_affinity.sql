-- Issue 19, image affinity (docs/scheduling.md "Image affinity"): whether the runner that claimed
-- an attempt reported holding the job's image at the claim (1 warm, 0 cold), NULL when it reported
-- no images (older runners, executors without an image cache) or for attempts before this column.
ALTER TABLE job_attempt ADD COLUMN warm INTEGER;
