-- Results where the pull request is (docs/pull-requests.md; decision 0057): a project's code
-- hosts (GitHub, GitLab) with the token that writes to them, the outbox of what each judged
-- report sends there, and the one sticky comment per host, pull request, branch and testbed.
-- Kept column-for-column identical in both dialects; times are microseconds since the epoch.

-- The pull request (GitHub) or merge request (GitLab) a run belongs to, as the run said.
ALTER TABLE report ADD COLUMN github_pr INTEGER;
ALTER TABLE report ADD COLUMN gitlab_mr INTEGER;

-- kind: github or gitlab; api_url: the host's REST root; repository: owner/name on GitHub, the
-- project's id or path on GitLab. The token is kept like a webhook's secret and never shown.
CREATE TABLE code_host (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT    NOT NULL UNIQUE,
    project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    kind       TEXT    NOT NULL,
    api_url    TEXT    NOT NULL,
    repository TEXT    NOT NULL,
    token      TEXT    NOT NULL,
    created    INTEGER NOT NULL,
    deleted    INTEGER
);
CREATE INDEX index_code_host_project ON code_host (project_id) WHERE deleted IS NULL;

-- The outbox: one row per judged report and host, written in the judgement's transaction.
-- next_attempt as webhook_delivery's; check_run keeps the check run (or nothing) an earlier
-- attempt created, so a retry updates it rather than making a second one.
CREATE TABLE code_host_delivery (
    id           INTEGER PRIMARY KEY,
    host_id      INTEGER NOT NULL REFERENCES code_host (id) ON DELETE CASCADE,
    report_id    INTEGER NOT NULL REFERENCES report (id) ON DELETE CASCADE,
    number       INTEGER NOT NULL,
    attempts     INTEGER NOT NULL,
    next_attempt INTEGER,
    delivered    INTEGER,
    last_status  INTEGER,
    last_error   TEXT,
    check_run    TEXT,
    created      INTEGER NOT NULL,
    UNIQUE (host_id, report_id)
);
CREATE INDEX index_code_host_delivery_due ON code_host_delivery (next_attempt) WHERE next_attempt IS NOT NULL;

-- The sticky comment (a GitHub issue comment, a GitLab note): one per host, pull request,
-- branch and testbed, its id on the host once written, the report it shows (a late retry of an
-- older report does not overwrite a newer one), and taken_until: the node writing it holds it
-- until then, so two nodes never create it twice.
CREATE TABLE code_host_comment (
    id          INTEGER PRIMARY KEY,
    host_id     INTEGER NOT NULL REFERENCES code_host (id) ON DELETE CASCADE,
    number      INTEGER NOT NULL,
    branch      TEXT    NOT NULL,
    testbed     TEXT    NOT NULL,
    remote_id   TEXT,
    report_id   INTEGER REFERENCES report (id) ON DELETE SET NULL,
    taken_until INTEGER,
    modified    INTEGER NOT NULL,
    UNIQUE (host_id, number, branch, testbed)
);
