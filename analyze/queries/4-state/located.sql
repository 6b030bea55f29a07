-- located: whether some span knows where it waited (engine_arrived_at within
-- [queued_at, admitted_at), docs/metrics.md "Where the idle time comes
-- from"): only then does the attribution sweep run (gap_steps …
-- gap_causes); otherwise every second of gap_time is unattributed
-- (gap_causes_unlocated).
SELECT EXISTS (SELECT 1 FROM spans WHERE queued_us < admitted_us AND arrived_us BETWEEN queued_us AND admitted_us);
