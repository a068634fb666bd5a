-- Registry upload sessions (OCI push: POST, PATCH…, PUT), so that any server node can continue
-- an upload another node started (docs/registry.md, "Storage"). Kept column-for-column identical
-- in both dialects. Times are microseconds since the epoch, as everywhere in the schema.
--
-- chunks: the JSON list of the upload's chunks in the blob store's staging area, in order
-- ([{"name":…,"size":…}]); size is their sum. Every PATCH is a compare-and-set on size, so two
-- requests racing on one session cannot both append.
CREATE TABLE registry_upload (
    id TEXT PRIMARY KEY,
    project_uuid TEXT NOT NULL,
    repository TEXT NOT NULL,
    size BIGINT NOT NULL,
    chunks TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
-- Idle sessions are discarded by age.
CREATE INDEX index_registry_upload_updated ON registry_upload (updated);
