-- Each runner's noise (issue 45; decision 0052): the calibration its agent measured while idle,
-- every one kept (the history is what "rose past its own history" is judged against). One row per
-- runner and measurement time (a resend of the same calibration is the same row). The CVs are the
-- coefficient of variation of each workload's repetitions (NULL: the workload was not run);
-- measured is microseconds since the epoch; fingerprint is the JSON the runner sent with it.
-- Identical in both dialects.
CREATE TABLE runner_noise (
    runner_id   BIGINT           NOT NULL REFERENCES runner (id) ON DELETE CASCADE,
    measured    BIGINT           NOT NULL,
    cpu_cv      DOUBLE PRECISION,
    memory_cv   DOUBLE PRECISION,
    file_cv     DOUBLE PRECISION,
    repetitions INTEGER          NOT NULL,
    fingerprint TEXT,
    PRIMARY KEY (runner_id, measured)
);

-- A spec's noise limit: its jobs are claimed only by runners whose latest calibration's largest CV
-- is at most this (a runner with none does not claim them). NULL: no limit.
ALTER TABLE spec ADD COLUMN max_noise_cv DOUBLE PRECISION;
