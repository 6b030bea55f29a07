-- list_quantiles: quantiles_cont(v, qs), the quantiles qs of the sorted list v
-- (NULLs removed) of DOUBLEs exactly as quantile_cont computes them: RN = (n − 1)·q,
-- the value at rank RN when it is whole, else lo·(1 − d) + hi·d with d = RN −
-- floor(RN), between the values at its floor and ceiling. NULL when v is empty or
-- NULL. For many quantiles of one column: one sort instead of one selection per
-- quantile.
CREATE OR REPLACE TEMP MACRO quantiles_cont(v, qs) AS
CASE WHEN len(v) > 0 THEN list_transform(qs, q -> CASE
    WHEN floor((len(v) - 1) * q::DOUBLE) = ceil((len(v) - 1) * q::DOUBLE)
        THEN v[floor((len(v) - 1) * q::DOUBLE)::BIGINT + 1]
    ELSE v[floor((len(v) - 1) * q::DOUBLE)::BIGINT + 1]
            * (1.0::DOUBLE - ((len(v) - 1) * q::DOUBLE - floor((len(v) - 1) * q::DOUBLE)))
        + v[ceil((len(v) - 1) * q::DOUBLE)::BIGINT + 1]
            * ((len(v) - 1) * q::DOUBLE - floor((len(v) - 1) * q::DOUBLE))
    END) END;
