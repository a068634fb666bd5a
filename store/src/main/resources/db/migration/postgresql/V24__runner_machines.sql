-- Every machine known (issue 41): what a runner's agent said of itself in `ready` (os, arch,
-- version, host, pid, agent start time) and the address its connection came from, as the server
-- saw it. One row per distinct machine a runner connected as (a reconnect of the same process
-- from the same address finds its row again); runner.machine_id is the latest, job_attempt's the
-- one that ran the attempt (behind a router: the runner behind it, as the router passed it on).
CREATE TABLE runner_machine (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    runner_id     BIGINT  NOT NULL REFERENCES runner (id) ON DELETE CASCADE,
    os            TEXT,
    arch          TEXT,
    version       TEXT,
    host          TEXT,
    pid           BIGINT,
    -- the agent process's start, microseconds since the epoch, as the agent reported it
    agent_started BIGINT,
    address       TEXT,
    -- when the server first recorded this machine (a rejoin after an update is a new row, seen later)
    seen          BIGINT  NOT NULL
);
CREATE INDEX index_runner_machine_runner ON runner_machine (runner_id, seen);
ALTER TABLE runner ADD COLUMN machine_id BIGINT REFERENCES runner_machine (id) ON DELETE SET NULL;
ALTER TABLE job_attempt ADD COLUMN machine_id BIGINT REFERENCES runner_machine (id) ON DELETE SET NULL;
