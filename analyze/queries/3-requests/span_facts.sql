-- span_facts: the largest idx (the bounds of delivered_bits and attempt_list)
-- and whether some span has no attempt number (then number_attempts runs).
SELECT max(idx), coalesce(bool_or(attempt IS NULL), false) FROM spans;
