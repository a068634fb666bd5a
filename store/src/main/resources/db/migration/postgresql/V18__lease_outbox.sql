-- Transport A (docs/protocol.md, "Transport A"; docs/decisions/0025-transport-a-nats.md): each
-- row is one lease offered on the broker. It is written, with the message to publish, in the
-- transaction that finds the job pending and without a live offer, so the row is the outbox: a
-- node that dies between that commit and the publish loses nothing, because any node publishes
-- rows whose published is NULL. state: 0 offered (waiting for AckLease until accept_deadline),
-- 1 bound to runner_id (alive until expires, renewed by heartbeats), 2 revoked (no AckLease in
-- the window), 3 ended (the attempt ended, or its lease expired). Times are epoch microseconds.
CREATE TABLE lease_offer (
    lease           TEXT PRIMARY KEY,
    job_uuid        TEXT NOT NULL,
    job_id          BIGINT NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    subject         TEXT NOT NULL,
    payload         TEXT NOT NULL,
    state           BIGINT NOT NULL DEFAULT 0,
    created         BIGINT NOT NULL,
    accept_deadline BIGINT NOT NULL,
    published       BIGINT,
    runner_id       BIGINT REFERENCES runner (id) ON DELETE SET NULL,
    expires         BIGINT,
    end_reason      TEXT
);
-- At most one live offer (offered or bound) per job, whichever node grants it.
CREATE UNIQUE INDEX index_lease_offer_live ON lease_offer (job_id) WHERE state IN (0, 1);
CREATE INDEX index_lease_offer_unpublished ON lease_offer (created) WHERE published IS NULL AND state = 0;
