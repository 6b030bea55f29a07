-- replica_count: how many replicas the spans' state is swept over
-- (replica_ids, the '' of spans without a replica among them); with one, its
-- segments are the pool's (replica_sweep_pool). And how many of them a span
-- names: the replicas cost is priced for.
SELECT count(*), count(*) FILTER (WHERE named) FROM replica_ids;
