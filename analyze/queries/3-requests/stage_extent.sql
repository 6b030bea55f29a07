-- stage_extent: the extent of a run that has stages but no span with an
-- instant ($path: its stages.parquet): the first stage's start to the last
-- stage's end, in µs, so that its stages are measured over their own time.
SELECT epoch_us(min(started_at)), epoch_us(max(ended_at))
FROM read_parquet($path, hive_partitioning = false)
