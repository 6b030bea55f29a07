-- attach_work: the database of a large run's tables (pipeline.go
-- largeRunSpans), a file in the analysis's temporary directory (removed with
-- it). What a statement writes there is stored compressed as it is written,
-- and under memory pressure DuckDB drops a table's blocks and reads them back
-- from this file, where an in-memory table's are written to the temp files
-- first. ATTACH takes no parameter: attachWork (analyze.go) puts the quoted
-- path in place of the one below.
ATTACH $path AS work;
