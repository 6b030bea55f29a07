-- run_gaps: win_gaps of the whole run (params with whole = true), the
-- windows' sums: exact, as run_state's.
CREATE OR REPLACE TABLE win_gaps AS
SELECT params.last AS window_index,
    sum(engine_gap_us)::BIGINT AS engine_gap_us,
    sum(admission_gap_us)::BIGINT AS admission_gap_us,
    sum(imbalance_gap_us)::BIGINT AS imbalance_gap_us,
    sum(unattributed_gap_us)::BIGINT AS unattributed_gap_us
FROM win_gaps, params
GROUP BY params.last;
