-- Fleet upgrades (issue 41, docs/operations.md "Upgrading the fleet"): a roll drains, updates and
-- waits for each of its runners in turn. Its state lives here so that a node that dies mid-roll
-- leaves it resumable by another, and at most one roll runs at a time across nodes.
CREATE TABLE runner_roll (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT    NOT NULL UNIQUE,
    -- running, succeeded or failed
    state           TEXT    NOT NULL,
    -- which runners: all, or spec:<slug>, or runner:<slug>
    target          TEXT    NOT NULL,
    version         TEXT    NOT NULL,
    url             TEXT    NOT NULL,
    checksum        TEXT    NOT NULL,
    max_unavailable INTEGER NOT NULL,
    -- seconds a runner has to rejoin at the new version once told to update
    rejoin_timeout  INTEGER NOT NULL,
    -- why it failed (names the runner), NULL otherwise
    reason          TEXT,
    created_by      TEXT,
    created         INTEGER NOT NULL,
    modified        INTEGER NOT NULL,
    ended           INTEGER,
    -- the lease: the node driving the roll and until when; another node takes over once it expired
    node            TEXT,
    node_expires    INTEGER
);
-- One roll at a time, whatever node started it.
CREATE UNIQUE INDEX index_runner_roll_running ON runner_roll (state) WHERE state = 'running';

CREATE TABLE runner_roll_step (
    roll_id      INTEGER NOT NULL REFERENCES runner_roll (id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    runner_id    INTEGER NOT NULL REFERENCES runner (id) ON DELETE CASCADE,
    -- pending, updating, done, skipped or failed
    state        TEXT    NOT NULL,
    -- the version the runner reported when the roll reached it
    from_version TEXT,
    started      INTEGER,
    ended        INTEGER,
    message      TEXT,
    PRIMARY KEY (roll_id, position)
);
