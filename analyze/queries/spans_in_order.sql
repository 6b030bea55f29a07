-- spans_in_order: whether the spans table is stored in input order (idx
-- increasing), which requests_out relies on. An empty OVER () reads the rows in
-- the order they are stored.
SELECT coalesce(bool_and(d > 0), true) FROM (SELECT idx - lag(idx) OVER () AS d FROM spans);
