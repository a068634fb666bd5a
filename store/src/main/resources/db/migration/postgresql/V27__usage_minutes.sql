-- Billed minutes as a ledger (issue 41, usage per period): one row each time a job's billed
-- minutes rise, written by the same transaction that raises job.last_billed_minute, so a minute
-- belongs to the period in which it was billed. job.last_billed_minute stays the per-job total.
CREATE TABLE usage_minute (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id BIGINT  NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
    project_id      BIGINT  NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    job_id          BIGINT  NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    minutes         INTEGER NOT NULL,
    billed          BIGINT  NOT NULL
);
CREATE INDEX index_usage_minute_organization ON usage_minute (organization_id, billed);
CREATE INDEX index_usage_minute_job ON usage_minute (job_id);
-- Minutes billed before this ledger: counted at the job's start (when billing began).
INSERT INTO usage_minute (organization_id, project_id, job_id, minutes, billed)
SELECT organization_id, project_id, id, last_billed_minute, COALESCE(started, created) FROM job WHERE last_billed_minute > 0;
