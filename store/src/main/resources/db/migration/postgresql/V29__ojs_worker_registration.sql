-- Issue 47: OJS workers register (seed 002) and the server steers them.
-- directive: the state an operator asked of the worker (quiet, terminate), told in its next heartbeat answer;
-- kept apart from state so that a beat, which rewrites state and document, never loses it.
-- heartbeat_timeout_ms: set at registration; a registered worker silent that long is terminated by the sweep.
ALTER TABLE ojs_worker ADD COLUMN directive TEXT;
ALTER TABLE ojs_worker ADD COLUMN heartbeat_timeout_ms BIGINT;
