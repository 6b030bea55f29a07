-- join_solo_stream: join_solo (join_solo.sql) from the pairs settled in Go
-- (join_solo.go), the Arrow stream join_solo_go, in gateway row order.
CREATE OR REPLACE TABLE join_solo AS
SELECT gi, ei FROM join_solo_go;
