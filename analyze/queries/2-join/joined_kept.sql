-- joined_kept: the engine spans no gateway span joined (join_unpaired), which
-- stay spans of their own, as the variable joined_kept: a bitstring whose bit
-- idx is 1 for such a span, NULL when there is none (usually). joined_gateway
-- and joined_engine select their rows with it by a lookup, not a join, which
-- would not keep the scan's order. bitstring_agg takes its bounds as
-- constants: the variable raw_max (spans.parquet's last row number), which
-- DuckDB folds when it binds the statement.
SET VARIABLE joined_kept = (
    SELECT bitstring_agg(idx, 0, getvariable('raw_max')) FROM join_unpaired WHERE is_en
);
