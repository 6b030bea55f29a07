-- curve_values: what the curves (curves) read: curve_spans, the successful
-- spans released in the run extent (params), and curve_values, their ttft and
-- t_queue in seconds (m: 0 and 1; a string would cost the sort 1.5 s at 10 M
-- spans). Views: each reader scans the spans itself.
CREATE OR REPLACE VIEW curve_spans AS
SELECT spans.* FROM spans, params WHERE ok AND released_us BETWEEN params.t0 AND params.t1;
CREATE OR REPLACE VIEW curve_values AS
SELECT 0 AS m, ttft(queued_us, first_token_us) AS v FROM curve_spans
UNION ALL
SELECT 1, t_queue(queued_us, admitted_us) FROM curve_spans;
