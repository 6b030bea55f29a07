-- joined_file: the joined spans (join_spans), in idx order, as the rows of a
-- Parquet file in analyze's temp directory (joinedFile), which span_src then
-- reads as a run without a join reads spans.parquet. The table is dropped
-- once written: at 10 M spans it held about 2 GB until requests.parquet was
-- written beside the sweeps, and every statement after the join spilled the
-- more for it.
SELECT * FROM joined_spans ORDER BY idx
