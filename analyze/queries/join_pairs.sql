-- join_pairs: which gateway span joins which engine span (docs/metrics.md
-- "Gateway and engine"); from raw_spans (join_raw.sql). $1: the time tolerance (µs).
--
-- Keys: a gateway span offers its span_id and request_id, an engine span its
-- request_id and that id without vLLM V1's internal suffix (-8 hex digits);
-- each with the OpenAI id prefix (chatcmpl-, cmpl-) and our attempt suffixes
-- (#retryN, #N) removed. A gateway span and an engine span sharing a key are
-- candidates when the engine's first instant lies within the gateway span's
-- [queued_at, released_at] widened by the tolerance (and the coarser time
-- resolution of the two). Each ranks its candidates: first those inside the
-- unwidened interval, then by the distance between the two releases (the
-- gateway ends a response when the engine does, give or take transit, while
-- the arrivals differ by the gateway's queueing), then between the arrivals,
-- then by row number. A pair joins when each is the other's first, so every
-- span joins at most once.
CREATE OR REPLACE TEMP TABLE join_pairs AS
WITH gw AS (
    SELECT idx, span_id, request_id,
        epoch_us(coalesce(queued_at, released_at)) AS lo,
        epoch_us(coalesce(released_at, queued_at)) AS hi,
        coalesce(time_resolution_us, 0) AS res
    FROM raw_spans WHERE is_gw
), en AS (
    SELECT idx, request_id,
        epoch_us(coalesce(queued_at, admitted_at, first_token_at, released_at)) AS t,
        epoch_us(coalesce(released_at, last_token_at, first_token_at, admitted_at, queued_at)) AS t_end,
        coalesce(time_resolution_us, 0) AS res
    FROM raw_spans WHERE is_en
), gk AS (
    SELECT DISTINCT idx, k
    FROM (SELECT idx, unnest([span_id, request_id]) AS id FROM gw),
         LATERAL (SELECT regexp_replace(regexp_replace(id, '^(chat)?cmpl-', ''), '#(retry)?[0-9]+$', '') AS k)
    WHERE k <> ''
), ek AS (
    SELECT DISTINCT idx, unnest([k, regexp_replace(k, '-[0-9a-f]{8}$', '')]) AS k
    FROM (SELECT idx, regexp_replace(regexp_replace(request_id, '^(chat)?cmpl-', ''), '#(retry)?[0-9]+$', '') AS k FROM en)
    WHERE k <> ''
), cand AS (
    SELECT DISTINCT gw.idx AS gi, en.idx AS ei,
        (en.t NOT BETWEEN gw.lo AND gw.hi, abs(en.t_end - gw.hi), abs(en.t - gw.lo)) AS d
    FROM gk JOIN ek USING (k)
    JOIN gw ON gw.idx = gk.idx
    JOIN en ON en.idx = ek.idx
    WHERE en.t BETWEEN gw.lo - $1 - greatest(gw.res, en.res) AND gw.hi + $1 + greatest(gw.res, en.res)
)
SELECT gi, ei FROM cand
QUALIFY row_number() OVER (PARTITION BY gi ORDER BY d, ei) = 1
    AND row_number() OVER (PARTITION BY ei ORDER BY d, gi) = 1;
