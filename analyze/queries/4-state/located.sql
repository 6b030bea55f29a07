-- located: whether some span knows where it waited (engine_arrived_at within
-- [queued_at, admitted_at), docs/metrics.md "Where the idle time comes
-- from"): only then does the attribution sweep run (gap_steps …
-- gap_causes); otherwise every second of gap_time is unattributed
-- (gap_causes_unlocated). And whether a span that names no replica (the
-- replica '', not named: replica_ids) has a step of state (span_steps): a
-- gateway's span cancelled before it reached an engine has none. Beside
-- named replicas that replica is outside the pool (pool_rids), so without
-- such a step gap_steps holds every replica's steps (the condition pooled).
SELECT EXISTS (SELECT 1 FROM spans WHERE queued_us < admitted_us AND arrived_us BETWEEN queued_us AND admitted_us),
       EXISTS (SELECT 1 FROM spans SEMI JOIN replica_ids ON replica_ids.rid = spans.rid AND NOT replica_ids.named
               WHERE has_state_step(queued_us, admitted_us, released_us));
