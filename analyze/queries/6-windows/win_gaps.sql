-- win_gaps: the pool's gap time per window by cause (gap_causes; µs), its
-- segments clipped to the run extent and split at the windows' bounds as
-- win_state splits the state's, so that the four sum to win_state's gap_us.
CREATE OR REPLACE TABLE win_gaps AS
WITH s AS (
    SELECT greatest(lo, params.t0) AS lo, least(hi, params.t1) AS hi, cause
    FROM gap_causes, params WHERE hi > params.t0 AND lo < params.t1
), y AS (
    SELECT window_index, least(hi, (window_index + 1) * params.width) - greatest(lo, window_index * params.width) AS len, cause
    FROM (SELECT unnest(range(lo // params.width, (hi - 1) // params.width + 1)) AS window_index, lo, hi, cause FROM s, params), params
)
SELECT window_index,
    coalesce(sum(len) FILTER (WHERE cause = 1), 0)::BIGINT AS engine_gap_us,
    coalesce(sum(len) FILTER (WHERE cause = 2), 0)::BIGINT AS admission_gap_us,
    coalesce(sum(len) FILTER (WHERE cause = 3), 0)::BIGINT AS imbalance_gap_us,
    coalesce(sum(len) FILTER (WHERE cause = 4), 0)::BIGINT AS unattributed_gap_us
FROM y GROUP BY window_index;
