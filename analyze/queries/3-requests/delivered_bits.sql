-- delivered_bits: the delivered spans (request_facts) as the variable
-- delivered, a bitstring whose bit idx is 1 for a delivered span: request_values
-- and quantities look a span up by its idx without a join, which would cost a
-- hash table of every span and, in request_values, the input order. NULL without
-- a delivered span. A variable, unlike attempt_list: 10 M lookups in it take
-- 0.3 s. bitstring_agg takes its bounds as constants: the variable max_idx (the
-- largest idx, max_idx.sql), which DuckDB folds when it binds the statement.
SET VARIABLE delivered = (
    SELECT bitstring_agg(delivered_idx, 0, getvariable('max_idx')) FROM request_facts WHERE delivered_idx IS NOT NULL
);
