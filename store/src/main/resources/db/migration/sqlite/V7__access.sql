-- Users, their memberships, scoped API tokens and the audit log (issue 20, docs/api.md "Access").
-- Kept column-for-column identical to postgresql/V7__access.sql. Roles are the stable integer
-- codes of the Java enum Role: 1 viewer, 2 submitter, 3 maintainer, 4 owner.

CREATE TABLE app_user (
    id       INTEGER PRIMARY KEY,
    uuid     TEXT    NOT NULL UNIQUE,
    name     TEXT    NOT NULL UNIQUE,
    created  INTEGER NOT NULL,
    modified INTEGER NOT NULL
);

-- A user's role on an organization (and so on every project of it) or on one project: exactly
-- one of organization_id, project_id is set.
CREATE TABLE membership (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    organization_id INTEGER REFERENCES organization (id) ON DELETE CASCADE,
    project_id      INTEGER REFERENCES project (id) ON DELETE CASCADE,
    role            INTEGER NOT NULL,
    created         INTEGER NOT NULL,
    modified        INTEGER NOT NULL
);
CREATE UNIQUE INDEX index_membership_organization ON membership (user_id, organization_id) WHERE organization_id IS NOT NULL;
CREATE UNIQUE INDEX index_membership_project ON membership (user_id, project_id) WHERE project_id IS NOT NULL;

-- An API token: only the SHA-256 of its secret is kept. Scoped to one organization or one project
-- (exactly one set); what it may do is the lesser of its role and its user's membership there.
CREATE TABLE api_token (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT    NOT NULL UNIQUE,
    user_id         INTEGER NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    name            TEXT    NOT NULL,
    token_hash      TEXT    NOT NULL UNIQUE,
    organization_id INTEGER REFERENCES organization (id) ON DELETE CASCADE,
    project_id      INTEGER REFERENCES project (id) ON DELETE CASCADE,
    role            INTEGER NOT NULL,
    created         INTEGER NOT NULL,
    expires         INTEGER,
    last_used       INTEGER,
    revoked         INTEGER
);
CREATE INDEX index_api_token_user ON api_token (user_id);

-- Who submitted a job, when it was a user's token (a submitter may cancel its own jobs).
CREATE TABLE job_submitter (
    job_id   INTEGER PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    token_id INTEGER REFERENCES api_token (id) ON DELETE SET NULL
);

-- State-changing actions of people and tokens (not runners' protocol traffic).
CREATE TABLE audit_event (
    id      INTEGER PRIMARY KEY,
    at      INTEGER NOT NULL,
    actor   TEXT    NOT NULL,
    token   TEXT,
    action  TEXT    NOT NULL,
    target  TEXT    NOT NULL,
    detail  TEXT,
    address TEXT
);
CREATE INDEX index_audit_event_at ON audit_event (at);
