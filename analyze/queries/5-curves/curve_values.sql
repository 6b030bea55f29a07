-- curve_values: what the curves (curves, curve_conc) read: curve_spans, the
-- successful spans released in the run extent (params); curve_values, their
-- ttft and t_queue in seconds (metric: 0 and 1; a string would cost the sort 1.5 s
-- at 10 M spans); curve_mids, the middle of each one's stream (t) with its
-- stream_tps, where it has one. Views: each reader scans the spans itself.
CREATE OR REPLACE VIEW curve_spans AS
SELECT spans.* FROM spans, params WHERE ok AND released_us BETWEEN params.t0 AND params.t1;
CREATE OR REPLACE VIEW curve_values AS
SELECT 0 AS metric, ttft(queued_us, first_token_us) AS v FROM curve_spans
UNION ALL
SELECT 1, t_queue(queued_us, admitted_us) FROM curve_spans;
CREATE OR REPLACE VIEW curve_mids AS
SELECT (first_token_us + last_token_us) // 2 AS t, stream_tps(first_token_us, last_token_us, output_tokens) AS stream_tps
FROM curve_spans WHERE stream_tps(first_token_us, last_token_us, output_tokens) IS NOT NULL;
