-- Issue 19, machine fingerprint. The runner's fingerprint of its machine, as the JSON it sent with
-- `running` (or with a noisy_machine decline); NULL for runners that send none. Identical in both dialects.
ALTER TABLE job_attempt ADD COLUMN fingerprint TEXT;
-- A spec whose jobs may run only on a machine with a clean fingerprint (runners decline otherwise).
ALTER TABLE spec ADD COLUMN require_clean_fingerprint BOOLEAN NOT NULL DEFAULT FALSE;
