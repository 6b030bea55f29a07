-- pool_segments: the pool's state as segments [lo, hi) of constant in_flight (inf)
-- and queue_depth (qd): the sweep of state_events, stored sorted by t.
CREATE OR REPLACE TABLE pool_segments AS
SELECT lo, hi, inf, qd FROM sweep('state_events');
