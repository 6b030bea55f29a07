-- pool_rid_list: the pool's replicas (pool_rids), whose spans' steps the
-- pool's sweep in Go files for the attribution's (pool_sweep.go).
SELECT rid FROM pool_rids ORDER BY rid;
