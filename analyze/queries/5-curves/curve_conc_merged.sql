-- curve_conc_merged: curve_conc with curve_conc.sql's rows, read
-- from curve_merge, the Arrow stream of the merge in Go that
-- curveConcMerged registers (curve_merge.go): a temporary view of this
-- connection, which curves reads once.
CREATE OR REPLACE VIEW curve_conc AS
SELECT in_flight, stream_tps FROM curve_merge;
