-- span_facts: whether some span has no attempt number but a request to
-- number it in (then number_attempts runs; a joined run's spans are numbered
-- in the join).
SELECT coalesce(bool_or(attempt IS NULL AND req IS NOT NULL), false) FROM spans;
