-- In-flight jobs by runner (docs/decisions/0021-postgresql-per-job-cost.md). The queue status of
-- every submission counts the jobs in flight on the runners serving its spec; it probes this
-- index once per serving runner. It replaces index_job_in_flight (keyed by status alone), so a
-- transition still inserts into as many indexes: on PostgreSQL every job passes through status 1
-- and 2 with non-HOT updates, and a count over that index ran as a bitmap scan, which never marks
-- the entries of dead rows, so it read thousands of them for a few dozen live rows. Plain index
-- scans per runner mark them as they pass. Counts of every job in flight use this index as well
-- (its predicate is theirs). Identical in both dialects.
DROP INDEX index_job_in_flight;
CREATE INDEX index_job_runner_in_flight ON job (runner_id) WHERE status IN (1, 2);
