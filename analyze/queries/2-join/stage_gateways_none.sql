-- stage_gateways_none: a run without the join knows no gateway receipt
-- beyond what its stages log.
CREATE OR REPLACE TABLE stage_gateways AS
SELECT ''::VARCHAR AS request_id, 0::BIGINT AS queued_us
WHERE false;
