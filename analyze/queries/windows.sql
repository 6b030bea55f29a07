-- windows: the tumbling windows k = first … last, their nominal bounds (the extent's
-- for the whole run) and their overlap with the run extent in µs.
CREATE OR REPLACE TABLE win AS
SELECT k,
       CASE WHEN p.whole THEN p.t0 ELSE k * p.width END AS w_lo,
       CASE WHEN p.whole THEN p.t1 ELSE (k + 1) * p.width END AS w_hi,
       (least(p.t1, (k + 1) * p.width) - greatest(p.t0, k * p.width)) AS us
FROM p, range(p.first, p.last + 1) AS t(k);
