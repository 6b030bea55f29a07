-- windows_out_none: windows.parquet of a durations-only run: the columns of
-- windows_out and no row, since spans that each count from their own start
-- share no clock to cut into windows.
SELECT
    make_timestamptz(window_start_us) AS window_start,
    make_timestamptz(window_end_us) AS window_end,
    * EXCLUDE (window_index, window_start_us, window_end_us)
FROM metrics WHERE false
