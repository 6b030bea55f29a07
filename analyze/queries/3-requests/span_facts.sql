-- span_facts: the largest idx (the bounds of delivered_bits and attempt_list)
-- and whether some span has no attempt number but a request to number it in
-- (then number_attempts runs; a joined run's spans are numbered in the join).
SELECT max(idx), coalesce(bool_or(attempt IS NULL AND request_id IS NOT NULL), false) FROM spans;
