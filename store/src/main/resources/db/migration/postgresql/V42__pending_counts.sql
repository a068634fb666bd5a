-- Pending jobs counted per spec and priority, kept by triggers in the writing transaction itself
-- (decision 0070, as SQLite's V21 and decision 0033): a queue status reads these counts and walks
-- only the jobs behind the job, not every job ahead. PostgreSQL has concurrent writers, so one
-- count row per spec and priority would make every submission and claim wait for the previous
-- one's commit (its WAL flush) on that row. Each backend therefore keeps its own row (`backend`
-- is pg_backend_pid()): no two live transactions ever write the same count row, and the count is
-- the sum over the rows. A backend's row may go negative (a job counted in by the backend that
-- inserted it is counted out by the one that claimed it). Rows of backends that ended are folded
-- into backend 0 by the store from time to time (PendingCountFold), so the rows stay about as many
-- as the pool's connections.
CREATE TABLE pending_count (
    spec_id BIGINT NOT NULL,
    priority INTEGER NOT NULL,
    backend INTEGER NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (spec_id, priority, backend)
);

INSERT INTO pending_count (spec_id, priority, backend, n)
    SELECT spec_id, priority, 0, COUNT(*) FROM job WHERE status = 0 GROUP BY spec_id, priority;

CREATE FUNCTION job_pending_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.status = 0 THEN
        INSERT INTO pending_count (spec_id, priority, backend, n) VALUES (OLD.spec_id, OLD.priority, pg_backend_pid(), -1)
            ON CONFLICT (spec_id, priority, backend) DO UPDATE SET n = pending_count.n - 1;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.status = 0 THEN
        INSERT INTO pending_count (spec_id, priority, backend, n) VALUES (NEW.spec_id, NEW.priority, pg_backend_pid(), 1)
            ON CONFLICT (spec_id, priority, backend) DO UPDATE SET n = pending_count.n + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER job_pending_inserted AFTER INSERT ON job FOR EACH ROW WHEN (NEW.status = 0)
    EXECUTE FUNCTION job_pending_count();

-- Any change of status, spec or priority of a job that was or is pending: out of the old count,
-- into the new one. A pending job written with the same status, spec and priority is not counted
-- again (the claim's and the sweeps' updates of other columns).
CREATE TRIGGER job_pending_changed AFTER UPDATE OF status, spec_id, priority ON job FOR EACH ROW
    WHEN ((OLD.status = 0 OR NEW.status = 0)
        AND (OLD.status, OLD.spec_id, OLD.priority) IS DISTINCT FROM (NEW.status, NEW.spec_id, NEW.priority))
    EXECUTE FUNCTION job_pending_count();

CREATE TRIGGER job_pending_deleted AFTER DELETE ON job FOR EACH ROW WHEN (OLD.status = 0)
    EXECUTE FUNCTION job_pending_count();
