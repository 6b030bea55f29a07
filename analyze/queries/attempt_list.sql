-- attempt_list: after number_attempts, the attempt of every span as the
-- variable attempts, a list whose element idx + 1 is the attempt of span idx
-- (NULL where no span has that idx: the join leaves gaps), for requests_out,
-- which takes the attempts the source left out from it. Only a run with such
-- spans builds it (NULL otherwise). MAX_IDX as in delivered_bits.
SET VARIABLE attempts = (
    SELECT list(s.attempt ORDER BY i.i)
    FROM range(0, MAX_IDX + 1) AS i(i) LEFT JOIN spans s ON s.idx = i.i
);
