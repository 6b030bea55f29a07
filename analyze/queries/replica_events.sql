-- replica_events: state_events sorted by replica, then instant, for replica_segments.
CREATE OR REPLACE TEMP TABLE replica_events AS
SELECT rid, t, di, dq FROM state_events ORDER BY rid, t;
