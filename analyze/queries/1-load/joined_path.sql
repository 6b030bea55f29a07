-- joined_path: the path of the joined spans' Parquet file (joined_file) as the
-- variable joined_path, which span_src_joined reads; a connection's own, so
-- set on both, as spans_path.
SET VARIABLE joined_path = $path;
