-- windows_out: the rows of windows.parquet: the metrics with their window bounds as
-- timestamps, in window order.
SELECT
    make_timestamp(window_start_us) AS window_start,
    make_timestamp(window_end_us) AS window_end,
    * EXCLUDE (k, window_start_us, window_end_us)
FROM metrics ORDER BY k
