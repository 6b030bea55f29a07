-- join_cand: the candidate pairs of a gateway span and an engine span, with the
-- rank keys (docs/metrics.md "Gateway and engine"); from raw_spans (join_raw.sql).
-- $tolerance_us: the time tolerance (µs).
--
-- Keys: a gateway span offers its span_id and request_id, an engine span its
-- request_id and that id without vLLM V1's internal suffix (-8 hex digits);
-- each with the OpenAI id prefix (chatcmpl-, cmpl-) and our attempt suffixes
-- (#retryN, #N) removed. A gateway span and an engine span sharing a key are
-- candidates when the engine's first instant lies within the gateway span's
-- [queued_at, released_at] widened by the tolerance (and the coarser time
-- resolution of the two). Each ranks its candidates (join_pairs) by:
--   outside  not inside the unwidened interval;
--   d_end    distance between the two releases (a gateway ends a response
--            when the engine does, give or take transit);
--   d_first  distance between the two first tokens, when both are known;
--   d_order  how far apart the two stand in arrival order among the spans of
--            their key (a FIFO queue admits in arrival order: a hedge and the
--            attempt it raced, ending together, pair in order even though the
--            gateway's queueing makes their arrival distances equal);
--   d_start  distance between the two arrivals; then row number.
CREATE OR REPLACE TABLE join_cand AS
WITH gw AS (
    SELECT idx, span_id, request_id, epoch_us(first_token_at) AS f,
        epoch_us(coalesce(queued_at, released_at)) AS lo,
        epoch_us(coalesce(released_at, queued_at)) AS hi,
        coalesce(time_resolution_us, 0) AS res
    FROM raw_spans WHERE is_gw
), en AS (
    SELECT idx, request_id, epoch_us(first_token_at) AS f,
        epoch_us(coalesce(queued_at, admitted_at, first_token_at, released_at)) AS t,
        epoch_us(coalesce(released_at, last_token_at, first_token_at, admitted_at, queued_at)) AS t_end,
        coalesce(time_resolution_us, 0) AS res
    FROM raw_spans WHERE is_en
), gk AS (
    SELECT k, idx, row_number() OVER (PARTITION BY k ORDER BY lo, idx) AS o
    FROM (
        SELECT DISTINCT k, idx, lo
        FROM (SELECT idx, lo, unnest([span_id, request_id]) AS id FROM gw),
             LATERAL (SELECT regexp_replace(regexp_replace(id, '^(chat)?cmpl-', ''), '#(retry)?[0-9]+$', '') AS k)
        WHERE k <> '')
), ek AS (
    SELECT k, idx, row_number() OVER (PARTITION BY k ORDER BY t, idx) AS o
    FROM (
        SELECT DISTINCT unnest([k, regexp_replace(k, '-[0-9a-f]{8}$', '')]) AS k, idx, t
        FROM (SELECT idx, t, regexp_replace(regexp_replace(request_id, '^(chat)?cmpl-', ''), '#(retry)?[0-9]+$', '') AS k FROM en)
        WHERE k <> '')
)
SELECT gw.idx AS gi, en.idx AS ei,
    en.t NOT BETWEEN gw.lo AND gw.hi AS outside,
    abs(en.t_end - gw.hi) AS d_end,
    abs(en.f - gw.f) AS d_first,
    min(abs(ek.o - gk.o)) AS d_order,
    abs(en.t - gw.lo) AS d_start
FROM gk JOIN ek USING (k)
JOIN gw ON gw.idx = gk.idx
JOIN en ON en.idx = ek.idx
WHERE en.t BETWEEN gw.lo - $tolerance_us - greatest(gw.res, en.res) AND gw.hi + $tolerance_us + greatest(gw.res, en.res)
GROUP BY ALL;
