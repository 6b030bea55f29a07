-- curve_merge_mids: the midpoints of rows [$from, $to) of curve_mids_sorted,
-- in its order, for the merge (curve_merge.go).
SELECT t, stream_tps FROM curve_mids_sorted WHERE rowid >= $from AND rowid < $to;
