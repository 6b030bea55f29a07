-- gap_replica_swept: gap_replica (gap_replica.sql) from the segments the
-- sweep in Go made (gap_segments), with each replica's cap.
CREATE OR REPLACE TABLE gap_replica AS
SELECT g.rid, lo, hi, in_flight, queue_depth, eq, gq, caps.cap
FROM gap_segments g JOIN replica_ids USING (rid) JOIN caps USING (rep);
