-- stage_caps_none: no samples, so no cap a worker reported.
CREATE OR REPLACE TABLE stage_caps AS
SELECT ''::VARCHAR AS rep, 0::BIGINT AS cap
WHERE false;
