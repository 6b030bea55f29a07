-- state_macros: the macros of the states' steps and measures (span_steps,
-- gap_steps, the windows, the attribution).
-- has_state_step: whether a span steps the state (span_steps, gap_steps):
-- in_flight on [admitted_at, released_at) when those are in order, or
-- queue_depth on [queued_at, admitted_at) when that is not empty.
CREATE OR REPLACE MACRO has_state_step(queued_us, admitted_us, released_us) AS admitted_us <= released_us OR queued_us < admitted_us;
-- in_gap, over_cap: a state (in_flight in_flight, queue_depth queue_depth) against a cap,
-- as the windows and the attribution measure it (docs/metrics.md): a gap
-- while requests wait with a slot free, over the cap while more run than it
-- allows.
CREATE OR REPLACE MACRO in_gap(in_flight, queue_depth, cap) AS queue_depth > 0 AND in_flight < cap;
CREATE OR REPLACE MACRO over_cap(in_flight, cap) AS in_flight > cap;
