-- sampling_holes: consecutive samples of a replica further apart than twice its
-- median sampling interval.
WITH o AS (
    SELECT rep, ts, lead(ts) OVER (PARTITION BY rep ORDER BY ts) AS nts FROM samples
), m AS (
    SELECT rep, floor(quantile_cont(nts - ts, 0.5))::BIGINT AS med
    FROM o WHERE nts IS NOT NULL GROUP BY rep
)
SELECT count(*) FROM o JOIN m USING (rep) WHERE o.nts - o.ts > 2 * m.med;
