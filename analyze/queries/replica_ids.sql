-- replica_ids: a small integer for each replica of the spans (coalesce(replica, '')),
-- in name order, so the state sweeps sort and group integers, not names.
CREATE OR REPLACE TEMP TABLE replica_ids AS
SELECT rep, (row_number() OVER (ORDER BY rep))::INTEGER AS rid
FROM (SELECT DISTINCT coalesce(replica, '') AS rep FROM spans);
