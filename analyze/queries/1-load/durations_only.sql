-- durations_only: the spans that carry durations but no instants (time_origin
-- request: each counts from its own start, so no two share a clock) and the
-- sources they come from. With any, the run has no windows (analyze.go).
SELECT count(*) AS n,
       coalesce(list_sort(list(DISTINCT source)), []) AS sources
FROM span_src WHERE time_origin = 'request';
