-- caps: the resolved cap of each replica ($1: replica names, $2: caps, same order).
CREATE OR REPLACE TABLE caps AS
SELECT unnest($1::VARCHAR[]) AS rep, unnest($2::BIGINT[]) AS cap;
