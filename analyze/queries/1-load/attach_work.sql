-- attach_work: the database of a large run's tables (pipeline.go
-- largeRunSpans), in memory and stored compressed once checkpointed.
ATTACH ':memory:' AS work (COMPRESS);
