-- The collected file (one of the job's file_paths) the report's adapter reads instead of stdout;
-- NULL: stdout. Identical in both dialects.
ALTER TABLE report ADD COLUMN results_file TEXT;
