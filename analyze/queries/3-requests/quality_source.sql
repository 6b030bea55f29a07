-- quality_source: the data-quality counts of docs/metrics.md "Data quality" from the columns of
-- span_src that the spans table leaves out: duplicate span_ids, the models
-- seen, spans with coarse timestamps (time_resolution_us, and the coarsest)
-- and spans timed from a benchmark's start (time_origin). quality_spans
-- counts the rest.
SELECT
    count(*) - count(DISTINCT span_id) AS duplicate_span_ids,
    coalesce(list_sort(list(DISTINCT model) FILTER (WHERE model IS NOT NULL)), []) AS models,
    count(*) FILTER (WHERE time_resolution_us > 1) AS coarse_time,
    count(*) FILTER (WHERE time_origin IS NOT NULL) AS relative_time,
    coalesce(max(time_resolution_us), 1)::BIGINT AS coarsest_us
FROM span_src;
