-- windows: the tumbling windows k = first … last, their nominal bounds (the extent's
-- for the whole run) and their overlap with the run extent in µs.
CREATE OR REPLACE TABLE win AS
SELECT k,
       CASE WHEN params.whole THEN params.t0 ELSE k * params.width END AS w_lo,
       CASE WHEN params.whole THEN params.t1 ELSE (k + 1) * params.width END AS w_hi,
       (least(params.t1, (k + 1) * params.width) - greatest(params.t0, k * params.width)) AS us
FROM params, range(params.first, params.last + 1) AS t(k);
