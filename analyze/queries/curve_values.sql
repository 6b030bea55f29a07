-- curve_values: the values of the quantile curves (curves): ttft and t_queue
-- (m: 0 and 1; a string would cost the sort 1.5 s at 10 M spans) of the
-- successful spans released in the run extent (p), in seconds.
CREATE OR REPLACE TEMP VIEW curve_values AS
SELECT 0 AS m, ttft(q, f) AS v FROM spans, p WHERE ok AND r BETWEEN p.t0 AND p.t1
UNION ALL
SELECT 1, t_queue(q, a) FROM spans, p WHERE ok AND r BETWEEN p.t0 AND p.t1;
