-- quality_spans: the data-quality counts of docs/metrics.md "Data quality" that the spans' instants
-- and request facts show ($t0, $t1 in µs: an instant outside them makes a
-- span clipped), from the spans table, which holds every span's instants:
-- reading them from spans.parquet again would decode them again.
-- quality_source counts the rest from the columns only it reads.
--
-- A span is out of order when two of its known instants, taken in the order
-- queued_us … released_us, decrease: a comparison with an unknown (NULL) instant is NULL, and
-- IS TRUE counts only a known decrease. least and greatest skip NULLs, so they
-- are the earliest and latest known instants (NULL when none is known).
--
-- A retry is unlinked when no span of its request has attempt 0, as
-- `request_id NOT IN (SELECT request_id FROM spans WHERE attempt = 0)` would
-- count it, from request_facts (has_first, retries) rather than a second join
-- of the spans: NOT IN holds for every retry when no span has attempt 0, for
-- none when a span of a NULL request_id has attempt 0, and otherwise for the
-- retries of the named requests without a first attempt. req is NULL exactly
-- when request_id is (load_spans).
SELECT
    count(*) FILTER (WHERE queued_us IS NULL) AS missing_queued_at,
    count(*) FILTER (WHERE admitted_us IS NULL) AS missing_admitted_at,
    count(*) FILTER (WHERE first_token_us IS NULL) AS missing_first_token_at,
    count(*) FILTER (WHERE last_token_us IS NULL) AS missing_last_token_at,
    count(*) FILTER (WHERE released_us IS NULL) AS missing_released_at,
    count(*) FILTER (WHERE (queued_us > admitted_us OR queued_us > first_token_us OR queued_us > last_token_us OR queued_us > released_us OR admitted_us > first_token_us OR admitted_us > last_token_us OR admitted_us > released_us
        OR first_token_us > last_token_us OR first_token_us > released_us OR last_token_us > released_us) IS TRUE) AS out_of_order,
    (SELECT CASE
        WHEN NOT coalesce(bool_or(has_first), false) THEN coalesce(sum(retries), 0)
        WHEN bool_or(has_first AND req IS NULL) THEN 0
        ELSE coalesce(sum(retries) FILTER (WHERE NOT has_first AND req IS NOT NULL), 0)
     END::BIGINT FROM request_facts) AS unlinked_retries,
    count(*) FILTER (WHERE NOT (admitted_us <= released_us) OR admitted_us IS NULL OR released_us IS NULL
        OR NOT (queued_us <= admitted_us) OR queued_us IS NULL) AS spans_outside_state,
    count(*) FILTER (WHERE least(queued_us, admitted_us, first_token_us, last_token_us, released_us) < $t0::BIGINT
        OR greatest(queued_us, admitted_us, first_token_us, last_token_us, released_us) > $t1::BIGINT) AS spans_clipped
FROM spans;
