-- pool_sweep_spans: the spans in rows [$from, $to) of the spans table that
-- step the pool's state (span_steps), for the sweep in Go (pool_sweep.go):
-- it makes their steps as span_steps does (gapRows, whose rows without a
-- step of in_flight or queue_depth it leaves out) and files each in its
-- slice of time, and when some wait is located it makes the pool
-- replicas' rows of gap_steps.sql from the same spans for the
-- attribution's sweep (gap_sweep.go). DuckDB reads those rows alone, and
-- hands over a span's instants rather than its rows of steps.
SELECT rid, queued_us, arrived_us, admitted_us, released_us FROM spans
WHERE rowid >= $from AND rowid < $to AND has_state_step(queued_us, admitted_us, released_us);
