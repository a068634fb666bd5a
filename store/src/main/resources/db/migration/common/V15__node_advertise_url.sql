-- Live logs across nodes (docs/decisions/0016-cross-node-live.md). Each node writes the address
-- the other nodes reach it at (advertise_url) once it listens; a node serving a log whose runner
-- is on another node asks that node for the entries. NULL: not advertised (yet), the log is served
-- as before (whole once the job ended). Identical in both dialects.
ALTER TABLE node ADD COLUMN advertise_url TEXT;
