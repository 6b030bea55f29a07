-- sorted_quantiles: sorted_quantiles(tbl, qs) is a row (m, qs) per group m of
-- the table or view named tbl (columns m, v; NULL values left out) with the
-- quantiles qs of its values, exactly as quantile_cont computes them: RN =
-- (n − 1)·q, the value at rank RN when it is whole, else lo·(1 − d) + hi·d with
-- d = RN − floor(RN), between the values at its floor and ceiling. A group
-- without values has no row. For many quantiles of a column: one sort, a
-- window's, which runs on every core, and a join that picks the values at the
-- ranks the quantiles need, instead of one selection per quantile
-- (quantile_cont with a list) or a list_sort on one thread.
CREATE OR REPLACE TEMP MACRO sorted_quantiles(tbl, qs) AS TABLE
WITH vals AS (
    SELECT m, v::DOUBLE AS v FROM query_table(tbl) WHERE v IS NOT NULL
), n AS (
    SELECT m, count(*) AS n FROM vals GROUP BY m
), want AS (
    SELECT m, i, (n - 1) * qs[i]::DOUBLE AS rn FROM n, range(1, len(qs) + 1) t(i)
), ranks AS (
    SELECT m, floor(rn)::BIGINT AS k FROM want
    UNION SELECT m, ceil(rn)::BIGINT FROM want
), picked AS (
    SELECT m, k, v FROM (
        SELECT m, v, row_number() OVER (PARTITION BY m ORDER BY v) - 1 AS k FROM vals
    ) SEMI JOIN ranks USING (m, k)
)
SELECT want.m,
    list(CASE WHEN floor(rn) = ceil(rn) THEN lo.v
              ELSE lo.v * (1.0::DOUBLE - (rn - floor(rn))) + hi.v * (rn - floor(rn)) END
         ORDER BY want.i) AS qs
FROM want
JOIN picked lo ON lo.m = want.m AND lo.k = floor(rn)::BIGINT
JOIN picked hi ON hi.m = want.m AND hi.k = ceil(rn)::BIGINT
GROUP BY want.m;
