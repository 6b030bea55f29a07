-- replica_segments_swept: replica_segments (replica_segments.sql) when the
-- replicas are all the pool's (pooled) and their segments came from the
-- attribution's sweep in Go (gap_sweep.go), which sums them as
-- replica_segments does: the Arrow stream replica_groups, a row a group
-- (rid, in_flight, queued), its sums of len·queue_depth as the high and low 64 bits of an
-- unsigned 128-bit integer.
CREATE OR REPLACE TABLE replica_segments AS
SELECT rid, in_flight, queued, len::HUGEINT AS len,
       CASE WHEN len IS NOT NULL THEN (len_qd_hi::HUGEINT << 64) + len_qd_lo::HUGEINT END AS len_qd
FROM replica_groups;
