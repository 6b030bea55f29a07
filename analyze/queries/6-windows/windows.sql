-- windows: the tumbling windows window_index = first … last, their nominal bounds (the extent's
-- for the whole run) and their overlap with the run extent in µs.
CREATE OR REPLACE TABLE windows AS
SELECT window_index,
       CASE WHEN params.whole THEN params.t0 ELSE window_index * params.width END AS w_lo,
       CASE WHEN params.whole THEN params.t1 ELSE (window_index + 1) * params.width END AS w_hi,
       (least(params.t1, (window_index + 1) * params.width) - greatest(params.t0, window_index * params.width)) AS overlap_us
FROM params, range(params.first, params.last + 1) AS t(window_index);
