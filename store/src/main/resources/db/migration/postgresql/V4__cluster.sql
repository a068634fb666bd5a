-- Several server nodes on one database (issue 14, docs/decisions/0006-cluster.md). Kept
-- column-for-column identical to sqlite/V4__cluster.sql.

-- Every deadline that changes a job, as an absolute time written in the same transaction as the
-- transition that starts it. Any node sweeps the due ones (under a row lock on PostgreSQL), so a
-- node's crash loses no timer and two nodes never act on one.
-- claimed: when the job goes back to the queue unless the runner says running (preparing moves it)
ALTER TABLE job ADD COLUMN accept_deadline BIGINT;
-- running: started + timeout + grace, when the server cancels it
ALTER TABLE job ADD COLUMN hard_deadline BIGINT;
-- in flight: its runner's channel closed (or its node died) and the job is lost at this time
-- unless the runner comes back and speaks of it; NULL while the runner is attached to a live node
ALTER TABLE job ADD COLUMN lost_deadline BIGINT;
-- canceled while in flight: the runner was told to stop and must answer canceled by then
ALTER TABLE job ADD COLUMN cancel_deadline BIGINT;

-- The node holding the runner's channel (NULL: not connected anywhere). When that node stops
-- heartbeating, the surviving nodes treat the runner as disconnected.
ALTER TABLE runner ADD COLUMN node_id TEXT;
CREATE INDEX index_runner_node_id ON runner (node_id) WHERE node_id IS NOT NULL;

-- Server nodes: each upserts its row at start and heartbeats with its liveness flush.
-- stopped is set by a clean shutdown or by the node that found it dead.
CREATE TABLE node (
    id             TEXT PRIMARY KEY,
    started        BIGINT NOT NULL,
    last_heartbeat BIGINT NOT NULL,
    stopped        BIGINT
);

CREATE INDEX index_job_accept_deadline ON job (accept_deadline) WHERE status = 1;
CREATE INDEX index_job_hard_deadline ON job (hard_deadline) WHERE status = 2;
CREATE INDEX index_job_lost_deadline ON job (lost_deadline) WHERE status IN (1, 2) AND lost_deadline IS NOT NULL;
CREATE INDEX index_job_cancel_deadline ON job (cancel_deadline) WHERE cancel_deadline IS NOT NULL;

-- Jobs in flight when the schema is upgraded: the deadlines the single-node server kept in memory,
-- from the defaults (acceptance 30 s, grace 60 s), and one heartbeat timeout for their runners to
-- come back.
UPDATE job SET accept_deadline = claimed + 30000000 WHERE status = 1;
UPDATE job SET hard_deadline = started + CAST(timeout AS BIGINT) * 1000000 + 60000000 WHERE status = 2;
UPDATE job SET lost_deadline = COALESCE(last_heartbeat, claimed) + 30000000 WHERE status IN (1, 2);
