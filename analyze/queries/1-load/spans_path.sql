-- spans_path: the path of spans.parquet as the variable spans_path, which
-- span_src and join_raw read: a view cannot take a parameter, and a path is
-- never spliced into SQL text. A connection's own, so set on both.
SET VARIABLE spans_path = $path;
