-- replica_gaps_unlocated: replica_gaps when no span knows where it waited:
-- no rows, and replica_state counts each replica's whole gap unattributed.
CREATE OR REPLACE TABLE replica_gaps AS
SELECT ''::VARCHAR AS rep, 0::BIGINT AS engine_us, 0::BIGINT AS admission_us, 0::BIGINT AS unattributed_us
WHERE false;
