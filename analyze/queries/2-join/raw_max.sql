-- raw_max: spans.parquet's last row number ($raw_max), the upper bound of
-- the bitstring joined_kept.
SET VARIABLE raw_max = $raw_max;
