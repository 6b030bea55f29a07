-- pool_segments: the pool's state as segments [lo, hi) of constant in_flight (in_flight)
-- and queue_depth (queue_depth): the sweep of state_events, stored sorted by t.
CREATE OR REPLACE TABLE pool_segments AS
SELECT lo, hi, in_flight, queue_depth FROM sweep('state_events');
