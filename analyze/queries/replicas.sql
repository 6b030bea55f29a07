-- replicas: every replica named by spans or samples, with what the cap rule needs:
-- whether spans name it, the largest cap its samples report, and the largest
-- in_flight its spans reached (the inferred cap).
WITH names AS (
    SELECT DISTINCT rep FROM spans
    UNION SELECT DISTINCT rep FROM samples
)
SELECT
    names.rep,
    EXISTS (SELECT 1 FROM spans s WHERE s.rep = names.rep) AS in_spans,
    (SELECT max(cap) FROM samples s WHERE s.rep = names.rep) AS sample_cap,
    coalesce((SELECT max(inf) FROM rseg s WHERE s.rep = names.rep), 0) AS max_in_flight
FROM names ORDER BY names.rep;
