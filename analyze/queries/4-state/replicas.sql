-- replicas: every replica named by spans or samples, with what the cap rule needs:
-- whether it belongs to the pool (spans name it; the anonymous replica '' belongs
-- only when no span names one: requests that never reached an engine add no slots),
-- the largest cap its samples report, and the largest in_flight its spans reached
-- (the inferred cap).
WITH named AS (
    SELECT rep FROM replica_ids WHERE named
), pool AS (
    SELECT rep FROM named
    UNION
    SELECT '' WHERE NOT EXISTS (SELECT 1 FROM named) AND EXISTS (SELECT 1 FROM spans)
), names AS (
    SELECT rep FROM pool
    UNION SELECT DISTINCT rep FROM samples
)
SELECT
    names.rep,
    names.rep IN (SELECT rep FROM pool) AS in_pool,
    (SELECT max(cap) FROM samples s WHERE s.rep = names.rep) AS sample_cap,
    coalesce((SELECT max(in_flight) FROM replica_segments s JOIN replica_ids i USING (rid) WHERE i.rep = names.rep), 0) AS max_in_flight
FROM names ORDER BY names.rep;
