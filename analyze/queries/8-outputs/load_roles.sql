-- load_roles: the rows of an analysed run's roles.parquet ($1), instants as µs.
SELECT epoch_us(window_start), epoch_us(window_end), window_seconds, role, workers, slots, utilization, mean_queue,
    gap_time_seconds, gap_fraction, held_seconds, held_fraction, router_share_seconds, router_share, idle_fraction,
    backlog_other_free_seconds, backlog_other_free_fraction
FROM read_parquet($1, hive_partitioning = false)
