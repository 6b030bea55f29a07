-- curve_merge_segments: the pool's segments that start in ($after, $upto],
-- in their order (by lo, as the sweep stores them), for the merge
-- (curve_merge.go).
SELECT lo, hi, in_flight FROM pool_segments WHERE lo > $after AND lo <= $upto;
