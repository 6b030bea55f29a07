-- run_tokens: win_tokens of the whole run (params with whole = true) from the
-- rows win_tokens holds for the windows: the windows cover the run extent, so
-- each interval's shares in them add up to its share in the run. Their DECIMAL
-- sums are exact, but the share of an interval cut by a window bound is
-- computed in floating point: its parts add up to its whole quantity only to
-- about 1e-16 relative. Rounding the run's sums to 1e-9 token gives the whole
-- quantities back, as the run's own pass would count them, and is far below
-- any share that counts.
CREATE OR REPLACE TABLE win_tokens AS
SELECT params.last AS window_index,
    round(sum(generated_tokens), 9) AS generated_tokens,
    round(sum(output_tokens), 9) AS output_tokens,
    round(sum(delivered_tokens), 9) AS delivered_tokens,
    round(sum(input_tokens), 9) AS input_tokens
FROM win_tokens, params
GROUP BY params.last;
