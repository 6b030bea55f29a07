-- run_id: the run's id from its spans, when the manifest names none.
SELECT coalesce(min(run_id), '') FROM span_src;
