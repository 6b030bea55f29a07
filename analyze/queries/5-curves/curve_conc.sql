-- curve_conc: each successful stream in the run extent (curve_spans) with its
-- stream_tps and the pool's in_flight at the middle of its stream: that of the
-- segment of pool_segments that holds the midpoint, 0 between segments (the
-- sweep leaves out those where the state is 0). A view, read by curves.
CREATE OR REPLACE VIEW curve_conc AS
WITH mid AS (
    SELECT (first_token_us + last_token_us) // 2 AS t, stream_tps(first_token_us, last_token_us, output_tokens) AS stream_tps
    FROM curve_spans WHERE stream_tps(first_token_us, last_token_us, output_tokens) IS NOT NULL
)
SELECT CASE WHEN mid.t < pool_segments.hi THEN pool_segments.inf ELSE 0 END AS in_flight, mid.stream_tps
FROM mid ASOF LEFT JOIN pool_segments ON mid.t >= pool_segments.lo;
