-- Pending jobs counted per spec and priority, kept by triggers in the writing transaction itself,
-- so every path that makes a job pending or ends its wait keeps the count (decision 0033). A queue
-- status near the end of a long queue then reads these counts and walks only the jobs behind it,
-- not every job ahead. SQLite only: it has one writer, so the hot count rows cost no waiting;
-- PostgreSQL keeps counting the jobs ahead.
CREATE TABLE pending_count (
    spec_id INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (spec_id, priority)
) WITHOUT ROWID;

INSERT INTO pending_count (spec_id, priority, n) SELECT spec_id, priority, COUNT(*) FROM job WHERE status = 0 GROUP BY spec_id, priority;

CREATE TRIGGER job_pending_inserted AFTER INSERT ON job WHEN NEW.status = 0 BEGIN
    INSERT INTO pending_count (spec_id, priority, n) VALUES (NEW.spec_id, NEW.priority, 1)
        ON CONFLICT (spec_id, priority) DO UPDATE SET n = n + 1;
END;

-- Any change of status, spec or priority of a job that was or is pending: out of the old count,
-- into the new one (both for a pending job written as pending again).
CREATE TRIGGER job_pending_changed AFTER UPDATE OF status, spec_id, priority ON job WHEN OLD.status = 0 OR NEW.status = 0 BEGIN
    UPDATE pending_count SET n = n - 1 WHERE OLD.status = 0 AND spec_id = OLD.spec_id AND priority = OLD.priority;
    INSERT INTO pending_count (spec_id, priority, n) SELECT NEW.spec_id, NEW.priority, 1 WHERE NEW.status = 0
        ON CONFLICT (spec_id, priority) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER job_pending_deleted AFTER DELETE ON job WHEN OLD.status = 0 BEGIN
    UPDATE pending_count SET n = n - 1 WHERE spec_id = OLD.spec_id AND priority = OLD.priority;
END;
