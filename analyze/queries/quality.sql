-- quality: the data-quality counts of SPEC §6 that the spans themselves show
-- ($1 t0, $2 t1 in µs: an instant outside them makes a span clipped).
SELECT
    count(*) FILTER (WHERE q IS NULL) AS missing_queued_at,
    count(*) FILTER (WHERE a IS NULL) AS missing_admitted_at,
    count(*) FILTER (WHERE f IS NULL) AS missing_first_token_at,
    count(*) FILTER (WHERE l IS NULL) AS missing_last_token_at,
    count(*) FILTER (WHERE r IS NULL) AS missing_released_at,
    count(*) FILTER (WHERE
        list_sort(list_filter([q, a, f, l, r], x -> x IS NOT NULL))
        <> list_filter([q, a, f, l, r], x -> x IS NOT NULL)) AS out_of_order,
    count(*) - count(DISTINCT span_id) AS duplicate_span_ids,
    count(*) FILTER (WHERE attempt > 0 AND request_id NOT IN
        (SELECT request_id FROM spans WHERE attempt = 0)) AS unlinked_retries,
    count(*) FILTER (WHERE NOT (a <= r) OR a IS NULL OR r IS NULL
        OR NOT (q <= a) OR q IS NULL) AS spans_outside_state,
    count(*) FILTER (WHERE
        list_min(list_filter([q, a, f, l, r], x -> x IS NOT NULL)) < $1::BIGINT
        OR list_max(list_filter([q, a, f, l, r], x -> x IS NOT NULL)) > $2::BIGINT) AS spans_clipped,
    coalesce(list_sort(list(DISTINCT model) FILTER (WHERE model IS NOT NULL)), []) AS models,
    count(*) FILTER (WHERE time_resolution_us > 1) AS coarse_time,
    count(*) FILTER (WHERE time_origin IS NOT NULL) AS relative_time
FROM spans;
