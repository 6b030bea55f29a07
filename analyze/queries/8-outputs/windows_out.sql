-- windows_out: the rows of windows.parquet: the metrics with their window bounds as
-- UTC instants (TIMESTAMP WITH TIME ZONE, stored with isAdjustedToUTC as
-- every time of the run dataset), in window order.
SELECT
    make_timestamptz(window_start_us) AS window_start,
    make_timestamptz(window_end_us) AS window_end,
    * EXCLUDE (window_index, window_start_us, window_end_us)
FROM metrics ORDER BY window_index
