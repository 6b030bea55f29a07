-- extent: the run extent in µs and whether any span has a time (docs/metrics.md "Run extent").
SELECT
    min(coalesce(q, a, f, l, r)) AS t0,
    max(coalesce(r, l, f, a, q)) AS t1
FROM spans;
