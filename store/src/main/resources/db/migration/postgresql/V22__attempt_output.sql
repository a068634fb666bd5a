-- A small output (docs/protocol.md, "Output") is kept on its attempt's row, written by the same
-- transaction that ends the attempt, instead of as a file in the blob storage beside it: a
-- refused final word stores nothing, and a job's completion creates no file (decision 0034).
-- Larger output stays in the blob storage and this column stays NULL.
ALTER TABLE job_attempt ADD COLUMN output BYTEA;
