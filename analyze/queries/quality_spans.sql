-- quality_spans: the data-quality counts of docs/metrics.md "Data quality" that the spans' instants
-- and request facts show ($t0, $t1 in µs: an instant outside them makes a
-- span clipped), from the spans table, which holds every span's instants:
-- reading them from spans.parquet again would decode them again.
-- quality_source counts the rest from the columns only it reads.
--
-- A span is out of order when two of its known instants, taken in the order
-- q a f l r, decrease: a comparison with an unknown (NULL) instant is NULL, and
-- IS TRUE counts only a known decrease. least and greatest skip NULLs, so they
-- are the earliest and latest known instants (NULL when none is known).
--
-- A retry is unlinked when no span of its request has attempt 0, as
-- `request_id NOT IN (SELECT request_id FROM spans WHERE attempt = 0)` would
-- count it, from request_facts (has_first, retries) rather than a second join
-- of the spans: NOT IN holds for every retry when no span has attempt 0, for
-- none when a span of a NULL request_id has attempt 0, and otherwise for the
-- retries of the named requests without a first attempt.
SELECT
    count(*) FILTER (WHERE q IS NULL) AS missing_queued_at,
    count(*) FILTER (WHERE a IS NULL) AS missing_admitted_at,
    count(*) FILTER (WHERE f IS NULL) AS missing_first_token_at,
    count(*) FILTER (WHERE l IS NULL) AS missing_last_token_at,
    count(*) FILTER (WHERE r IS NULL) AS missing_released_at,
    count(*) FILTER (WHERE (q > a OR q > f OR q > l OR q > r OR a > f OR a > l OR a > r
        OR f > l OR f > r OR l > r) IS TRUE) AS out_of_order,
    (SELECT CASE
        WHEN NOT coalesce(bool_or(has_first), false) THEN coalesce(sum(retries), 0)
        WHEN bool_or(has_first AND request_id IS NULL) THEN 0
        ELSE coalesce(sum(retries) FILTER (WHERE NOT has_first AND request_id IS NOT NULL), 0)
     END::BIGINT FROM request_facts) AS unlinked_retries,
    count(*) FILTER (WHERE NOT (a <= r) OR a IS NULL OR r IS NULL
        OR NOT (q <= a) OR q IS NULL) AS spans_outside_state,
    count(*) FILTER (WHERE least(q, a, f, l, r) < $t0::BIGINT
        OR greatest(q, a, f, l, r) > $t1::BIGINT) AS spans_clipped
FROM spans;
