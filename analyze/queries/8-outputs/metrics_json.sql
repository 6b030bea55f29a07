-- metrics_json: the metrics rows as JSON objects named as schemas.Metrics, in window order.
SELECT to_json(x)::VARCHAR FROM (
    SELECT
        strftime(make_timestamp(window_start_us), '%Y-%m-%dT%H:%M:%S.%fZ') AS window_start,
        strftime(make_timestamp(window_end_us), '%Y-%m-%dT%H:%M:%S.%fZ') AS window_end,
        * EXCLUDE (window_index, window_start_us, window_end_us)
    FROM metrics ORDER BY window_index
) x;
