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
-- spans only (keys): the spans holding such a key are found by their k1 and
-- k2 before their keys are listed, so that the listing (as in join_match)
-- covers a few spans, not all of them (at 10 M spans, listing every span's
-- keys took 17 s of spilling).
-- The pairs not in join_solo are those whose gateway span is not in the set
-- of join_solo's in blocks (join_solo_gi, span_metrics): a join of
-- join_match with the few blocks, where an anti join against join_solo would
-- build and probe a hash table of every pair.
CREATE OR REPLACE TABLE join_cand AS
WITH join_solo_gi AS (
    SELECT block_of(gi) AS blk, block_bits(gi) AS bits FROM join_solo GROUP BY ALL
), amb AS MATERIALIZED (
    SELECT join_match.* FROM join_match LEFT JOIN join_solo_gi ON join_solo_gi.blk = block_of(gi)
    WHERE NOT in_block(join_solo_gi.bits, gi)
), keys AS (
    SELECT DISTINCT k FROM (
        SELECT unnest([k1, CASE WHEN k2 IS DISTINCT FROM k1 THEN k2 END]) AS k
        FROM raw_spans SEMI JOIN amb ON amb.gi = raw_spans.idx)
    WHERE k <> ''
), gk AS (
    SELECT * FROM (
        SELECT unnest([k1, CASE WHEN k2 IS DISTINCT FROM k1 THEN k2 END]) AS k, idx, lo
        FROM raw_spans WHERE is_gw AND (k1 IN (SELECT k FROM keys) OR k2 IN (SELECT k FROM keys)))
    SEMI JOIN keys USING (k)
), ek AS (
    SELECT * FROM (
        SELECT unnest([k2, k3]) AS k, idx, t
        FROM (SELECT idx, lo AS t, k2,
                  CASE WHEN k2 LIKE '%-________' THEN nullif(regexp_replace(k2, '-[0-9a-f]{8}$', ''), k2) END AS k3
              FROM raw_spans WHERE is_en)
        WHERE k2 IN (SELECT k FROM keys) OR k3 IN (SELECT k FROM keys))
    SEMI JOIN keys USING (k)
), go AS (
    SELECT k, idx, row_number() OVER (PARTITION BY k ORDER BY lo, idx) AS o FROM gk
), eo AS (
    SELECT k, idx, row_number() OVER (PARTITION BY k ORDER BY t, idx) AS o FROM ek
)
SELECT amb.gi, amb.ei, outside, d_end, d_first, min(abs(eo.o - go.o)) AS d_order, d_start
FROM amb JOIN go ON go.idx = amb.gi JOIN eo ON eo.idx = amb.ei AND eo.k = go.k
GROUP BY ALL;
