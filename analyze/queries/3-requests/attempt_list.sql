-- attempt_list: after number_attempts, the attempt of every span as a one-row
-- table of a list whose element idx + 1 is the attempt of span idx (NULL where
-- no span has that idx: the join leaves gaps), for request_values, which takes
-- the attempts the source left out from it. Only a run with such spans builds
-- the list (no_attempt_list otherwise). A table, not a variable: a variable's
-- list is copied into every vector that reads it (2 M spans took 15 s), a
-- column of a one-row table joined to every row is not. max_idx as in
-- delivered_bits.
CREATE OR REPLACE TABLE attempt_list AS
SELECT list(s.attempt ORDER BY i.i) AS attempts
FROM range(0, getvariable('max_idx') + 1) AS i(i) LEFT JOIN spans s ON s.idx = i.i;
