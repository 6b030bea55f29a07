-- replica_ids: a small integer rid for each replica of the spans
-- (coalesce(replica, '')), in name order, which load_spans stores in place of
-- the name, so that the state sweeps sort and group integers, not names; named
-- when a span names it (the '' of spans without a replica is not named, unless
-- a span names the replica '').
CREATE OR REPLACE TABLE replica_ids AS
SELECT rep, (row_number() OVER (ORDER BY rep))::INTEGER AS rid, named
FROM (SELECT coalesce(replica, '') AS rep, bool_or(replica IS NOT NULL) AS named FROM span_src GROUP BY 1);
