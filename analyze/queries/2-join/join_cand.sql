-- join_cand: the candidate pairs that the rounds rank (join_pairs): those of
-- join_match not in join_solo, one row per pair, with the rank keys
-- (docs/metrics.md "Gateway and engine"): join_match's and
--   d_order  how far apart the two stand in arrival order among the spans of
--            their key (a FIFO queue admits in arrival order: a hedge and the
--            attempt it raced, ending together, pair in order even though the
--            gateway's queueing makes their arrival distances equal), the
--            least over the keys they share.
-- A span's place in arrival order counts every span of its key, candidate or
-- not, so it is numbered over raw_spans, for the keys of these pairs' gateway
-- spans only. A gateway span's keys as in join_match; an engine span's too.
CREATE OR REPLACE TABLE join_cand AS
WITH amb AS (
    SELECT * FROM join_match ANTI JOIN join_solo USING (gi)
), gk AS (
    SELECT * FROM (SELECT unnest([k1, CASE WHEN k2 IS DISTINCT FROM k1 THEN k2 END]) AS k, idx, lo FROM raw_spans WHERE is_gw)
    WHERE k <> ''
), ek AS (
    SELECT * FROM (
        SELECT unnest([k2, CASE WHEN k2 LIKE '%-________' THEN nullif(regexp_replace(k2, '-[0-9a-f]{8}$', ''), k2) END]) AS k,
            idx, lo AS t
        FROM raw_spans WHERE is_en)
    WHERE k <> ''
), keys AS (
    SELECT DISTINCT k FROM gk SEMI JOIN amb ON amb.gi = gk.idx
), go AS (
    SELECT k, idx, row_number() OVER (PARTITION BY k ORDER BY lo, idx) AS o FROM gk SEMI JOIN keys USING (k)
), eo AS (
    SELECT k, idx, row_number() OVER (PARTITION BY k ORDER BY t, idx) AS o FROM ek SEMI JOIN keys USING (k)
)
SELECT amb.gi, amb.ei, outside, d_end, d_first, min(abs(eo.o - go.o)) AS d_order, d_start
FROM amb JOIN go ON go.idx = amb.gi JOIN eo ON eo.idx = amb.ei AND eo.k = go.k
GROUP BY ALL;
