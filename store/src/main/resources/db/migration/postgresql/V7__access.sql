-- Users, their memberships, scoped API tokens and the audit log (issue 20, docs/api.md "Access").
-- Kept column-for-column identical to sqlite/V7__access.sql. Roles are the stable integer
-- codes of the Java enum Role: 1 viewer, 2 submitter, 3 maintainer, 4 owner.

CREATE TABLE app_user (
    id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    uuid     TEXT    NOT NULL UNIQUE,
    name     TEXT    NOT NULL UNIQUE,
    created  BIGINT NOT NULL,
    modified BIGINT NOT NULL
);

-- A user's role on an organization (and so on every project of it) or on one project: exactly
-- one of organization_id, project_id is set.
CREATE TABLE membership (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id         BIGINT  NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    organization_id BIGINT  REFERENCES organization (id) ON DELETE CASCADE,
    project_id      BIGINT  REFERENCES project (id) ON DELETE CASCADE,
    role            INTEGER NOT NULL,
    created         BIGINT NOT NULL,
    modified        BIGINT NOT NULL
);
CREATE UNIQUE INDEX index_membership_organization ON membership (user_id, organization_id) WHERE organization_id IS NOT NULL;
CREATE UNIQUE INDEX index_membership_project ON membership (user_id, project_id) WHERE project_id IS NOT NULL;

-- An API token: only the SHA-256 of its secret is kept. Scoped to one organization or one project
-- (exactly one set); what it may do is the lesser of its role and its user's membership there.
CREATE TABLE api_token (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    uuid            TEXT    NOT NULL UNIQUE,
    user_id         BIGINT  NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    name            TEXT    NOT NULL,
    token_hash      TEXT    NOT NULL UNIQUE,
    organization_id BIGINT  REFERENCES organization (id) ON DELETE CASCADE,
    project_id      BIGINT  REFERENCES project (id) ON DELETE CASCADE,
    role            INTEGER NOT NULL,
    created         BIGINT NOT NULL,
    expires         BIGINT,
    last_used       BIGINT,
    revoked         BIGINT
);
CREATE INDEX index_api_token_user ON api_token (user_id);

-- Who submitted a job, when it was a user's token (a submitter may cancel its own jobs).
CREATE TABLE job_submitter (
    job_id   BIGINT PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    user_id  BIGINT  NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    token_id BIGINT  REFERENCES api_token (id) ON DELETE SET NULL
);

-- State-changing actions of people and tokens (not runners' protocol traffic).
CREATE TABLE audit_event (
    id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at      BIGINT NOT NULL,
    actor   TEXT    NOT NULL,
    token   TEXT,
    action  TEXT    NOT NULL,
    target  TEXT    NOT NULL,
    detail  TEXT,
    address TEXT
);
CREATE INDEX index_audit_event_at ON audit_event (at);
