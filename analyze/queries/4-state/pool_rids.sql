-- pool_rids: the replicas of the pool (docs/metrics.md "States"): those the
-- spans name, or the anonymous '' when none is named. A wait is located only
-- at one of them: a span of another replica (a gateway's unnamed span beside
-- named engines) never reached an engine that adds slots.
CREATE OR REPLACE TABLE pool_rids AS
SELECT rid FROM replica_ids WHERE named OR NOT EXISTS (SELECT 1 FROM replica_ids WHERE named);
