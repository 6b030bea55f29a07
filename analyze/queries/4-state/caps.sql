-- caps: the resolved cap of each replica ($names: replica names, $caps: caps, same order).
CREATE OR REPLACE TABLE caps AS
SELECT unnest($names::VARCHAR[]) AS rep, unnest($caps::BIGINT[]) AS cap;
