-- delivered_requests: every completed request with a delivered span, with
-- its latencies as the user saw them (docs/metrics.md "Requests and SLOs"):
-- from the request's first arrival (the earliest queued_at of its spans) to
-- the delivered span's first token (ttft_req_us) and release (e2e_req_us),
-- and the delivered span's tpot (tpot_req). completed_us is the request's
-- completion (its last span's release), the instant its window counts it
-- at, as win_events counts requests. A span alone in its request is
-- delivered when it succeeded.
CREATE OR REPLACE TABLE delivered_requests AS
SELECT released_us AS completed_us,
       ttft_us(queued_us, first_token_us) AS ttft_req_us,
       t_total_us(queued_us, released_us) AS e2e_req_us,
       tpot(first_token_us, last_token_us, output_tokens) AS tpot_req
FROM spans WHERE solo AND ok AND released_us IS NOT NULL
UNION ALL
SELECT mf.rc,
       ttft_us(mf.first_queued_us, s.first_token_us),
       t_total_us(mf.first_queued_us, s.released_us),
       tpot(s.first_token_us, s.last_token_us, s.output_tokens)
FROM multi_facts mf JOIN spans s ON s.idx = mf.delivered_idx
WHERE mf.rc IS NOT NULL;
