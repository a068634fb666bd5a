-- How many preferred labels a job has (fixed at submission). A claim orders candidates by the
-- preferred labels the runner has only when some pending job of its specs has one; this column
-- and its partial index answer that in one probe, and otherwise the claim walks index_job_pending
-- in order and stops at the first claimable job instead of sorting the whole queue.
ALTER TABLE job ADD COLUMN preferred_labels INTEGER NOT NULL DEFAULT 0;
UPDATE job SET preferred_labels = (SELECT COUNT(*) FROM job_label jl WHERE jl.job_id = job.id AND jl.required = 0)
    WHERE id IN (SELECT job_id FROM job_label WHERE required = 0);
CREATE INDEX index_job_pending_preferred ON job (spec_id) WHERE status = 0 AND preferred_labels > 0;
