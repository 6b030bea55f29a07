-- checkpoint_work: writes what the write-ahead log of a large run's database
-- (attach_work) still holds into the file once the spans table is loaded, so
-- that the later tables, made from it, find it stored.
CHECKPOINT work;
