-- join_match: every pair of a gateway span gi and an engine span ei sharing a
-- key (raw_spans) whose engine arrival lies within the gateway span's [lo, hi]
-- widened by $tolerance_us (the time tolerance, µs) and the coarser time
-- resolution of the two: the candidates of docs/metrics.md "Gateway and
-- engine", with the rank keys that need no other span (join_cand adds
-- d_order). A pair that shares two keys is here twice. An equi-join on the
-- key, then the range filter; no DISTINCT: a span's keys are listed once
-- each (k2 only when it is not k1, the engine's second key only when
-- the suffix came off).
--   outside  not inside the unwidened interval;
--   d_end    distance between the two releases (a gateway ends a response
--            when the engine does, give or take transit);
--   d_first  distance between the two first tokens, when both are known;
--   d_start  distance between the two arrivals.
CREATE OR REPLACE TABLE join_match AS
WITH gk AS (
    SELECT * FROM (SELECT unnest([k1, CASE WHEN k2 IS DISTINCT FROM k1 THEN k2 END]) AS k, idx, lo, hi, f, res FROM raw_spans WHERE is_gw)
    WHERE k <> ''
), ek AS (
    SELECT * FROM (
        SELECT unnest([k2, CASE WHEN k2 LIKE '%-________' THEN nullif(regexp_replace(k2, '-[0-9a-f]{8}$', ''), k2) END]) AS k,
            idx, lo AS t, hi AS t_end, f, res
        FROM raw_spans WHERE is_en)
    WHERE k <> ''
)
SELECT gk.idx AS gi, ek.idx AS ei,
    ek.t NOT BETWEEN gk.lo AND gk.hi AS outside,
    abs(ek.t_end - gk.hi) AS d_end,
    abs(ek.f - gk.f) AS d_first,
    abs(ek.t - gk.lo) AS d_start
FROM gk JOIN ek ON ek.k = gk.k
    AND ek.t BETWEEN gk.lo - $tolerance_us - greatest(gk.res, ek.res) AND gk.hi + $tolerance_us + greatest(gk.res, ek.res);
