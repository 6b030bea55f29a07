-- join_spare_stream: join_spare, the gateway and engine spans that are not
-- in join_solo, with what join_unpaired_go and join_renames_go read of them
-- (join_unpaired's columns), from the Arrow stream join_spare_go
-- (join_go.go).
CREATE OR REPLACE TABLE join_spare AS
SELECT idx, is_gw, is_en, ok, replica FROM join_spare_go;
