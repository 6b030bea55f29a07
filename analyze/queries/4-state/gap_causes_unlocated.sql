-- gap_causes_unlocated: gap_causes when no span knows where it waited: the
-- whole gap is 4 unattributed_gap.
CREATE OR REPLACE TABLE gap_causes AS
SELECT lo, hi, 4::TINYINT AS cause FROM pool_segments WHERE in_gap(in_flight, queue_depth, $pool_cap::BIGINT);
