-- load_windows: the rows of a windows.parquet as JSON objects named as schemas.Metrics ($1: path).
SELECT to_json(x)::VARCHAR FROM (
    SELECT
        strftime(window_start, '%Y-%m-%dT%H:%M:%S.%fZ') AS window_start,
        strftime(window_end, '%Y-%m-%dT%H:%M:%S.%fZ') AS window_end,
        * EXCLUDE (window_start, window_end)
    FROM read_parquet(?, hive_partitioning = false) ORDER BY window_start
) x;
