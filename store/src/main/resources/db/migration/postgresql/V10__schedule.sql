-- Schedules (issue 15, docs/api.md "Schedules"): a POST /v0/run body submitted on a cron
-- expression in a time zone, or once at a given time. Kept column-for-column identical in both
-- dialects. Times are microseconds since the epoch, as everywhere in the schema.
CREATE TABLE schedule (
    uuid TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    -- a five-field cron expression, or NULL for a one-off (delayed) run
    cron TEXT,
    timezone TEXT NOT NULL,
    -- the POST /v0/run body, as JSON
    run TEXT NOT NULL,
    paused INTEGER NOT NULL,
    -- when it fires next; NULL once a one-off has fired. Firing compare-and-sets version, so
    -- with several server nodes on one database exactly one of them submits each occurrence.
    next_fire BIGINT,
    version INTEGER NOT NULL,
    last_fired BIGINT,
    last_report TEXT,
    last_error TEXT,
    created BIGINT NOT NULL
);
CREATE INDEX index_schedule_next_fire ON schedule (next_fire);
