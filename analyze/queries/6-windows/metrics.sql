-- metrics: every window metric of docs/metrics.md under its summary.json name, one row per
-- window (docs/metrics.md). Every ratio is NULL where its denominator is 0.
CREATE OR REPLACE TABLE metrics AS
WITH j AS (
    SELECT windows.window_index, windows.w_lo, windows.w_hi, windows.overlap_us / 1e6 AS secs,
        coalesce(t.generated_tokens, 0)::DOUBLE AS generated_tokens,
        coalesce(t.output_tokens, 0)::DOUBLE AS output_tokens,
        coalesce(t.delivered_tokens, 0)::DOUBLE AS delivered_tokens,
        coalesce(t.input_tokens, 0)::DOUBLE AS input_tokens,
        coalesce(e.attempts, 0) AS attempts,
        coalesce(e.successful_attempts, 0) AS successful_attempts,
        coalesce(e.retry_attempts, 0) AS retry_attempts,
        coalesce(e.arrivals, 0) AS arrivals,
        coalesce(e.completed_arrivals, 0) AS completed_arrivals,
        e.request_total_us,
        coalesce(e.requests, 0) AS requests,
        coalesce(e.succeeded_requests, 0) AS succeeded_requests,
        coalesce(s.backlog_us, 0) AS backlog_us,
        coalesce(s.gap_us, 0) AS gap_us,
        coalesce(s.over_cap_us, 0) AS over_cap_us,
        coalesce(s.in_flight_us, 0) AS in_flight_us,
        coalesce(s.queue_us, 0) AS queue_us,
        coalesce(g.engine_gap_us, 0) AS engine_gap_us,
        coalesce(g.admission_gap_us, 0) AS admission_gap_us,
        coalesce(g.imbalance_gap_us, 0) AS imbalance_gap_us,
        coalesce(g.unattributed_gap_us, 0) AS unattributed_gap_us,
        sm.sampled_us, sm.backlog_us AS s_backlog_us, sm.gap_us AS s_gap_us,
        sm.in_flight_us AS s_in_flight_us, sm.queue_us AS s_queue_us,
        en.kv_us, en.kv_sum, en.kv_max, en.hr_us, en.hr_sum, en.preemptions, en.prefix_queries, en.prefix_hits,
        en.spec_draft, en.spec_accepted,
        coalesce(sl.slo_met, 0) AS slo_met,
        da.* EXCLUDE (window_index), db.* EXCLUDE (window_index), dc.* EXCLUDE (window_index)
    FROM windows
    LEFT JOIN win_tokens t USING (window_index)
    LEFT JOIN win_events e USING (window_index)
    LEFT JOIN win_state s USING (window_index)
    LEFT JOIN win_gaps g USING (window_index)
    LEFT JOIN win_sampled sm USING (window_index)
    LEFT JOIN win_engine en USING (window_index)
    LEFT JOIN win_dists_a da USING (window_index)
    LEFT JOIN win_dists_b db USING (window_index)
    LEFT JOIN win_dists_c dc USING (window_index)
    LEFT JOIN win_slo sl USING (window_index)
)
SELECT
    window_index,
    w_lo AS window_start_us,
    w_hi AS window_end_us,
    secs AS window_seconds,
    output_tokens / nullif(secs, 0) AS system_tps,
    generated_tokens / nullif(secs, 0) AS generated_tps,
    delivered_tokens / nullif(secs, 0) AS retry_adjusted_system_tps,
    1 - delivered_tokens / nullif(generated_tokens, 0) AS waste_fraction,
    input_tokens / nullif(secs, 0) AS input_tps,
    output_tokens, generated_tokens, delivered_tokens, input_tokens,
    arrivals,
    arrivals / nullif(secs, 0) AS arrival_rate,
    requests, succeeded_requests, attempts, successful_attempts, retry_attempts,
    succeeded_requests / nullif(requests, 0) AS success_rate,
    successful_attempts / nullif(attempts, 0) AS attempt_success_rate,
    retry_attempts / nullif(attempts, 0) AS retry_rate,
    backlog_us / 1e6 AS backlog_time,
    gap_us / 1e6 AS gap_time,
    gap_us / 1e6 / nullif(secs, 0) AS gap_fraction,
    gap_us / nullif(backlog_us, 0)::DOUBLE AS backlog_gap_fraction,
    in_flight_us::DOUBLE / 1e6 / nullif(secs, 0) AS mean_in_flight,
    queue_us::DOUBLE / 1e6 / nullif(secs, 0) AS mean_queue_depth,
    in_flight_us::DOUBLE / 1e6 / nullif(secs, 0) / nullif(params.cap, 0) AS utilization,
    arrivals / nullif(secs, 0) * (request_total_us::DOUBLE / 1e6 / nullif(completed_arrivals, 0)) AS little_concurrency,
    over_cap_us / 1e6 AS over_cap_time,
    engine_gap_us / 1e6 AS engine_gap_time,
    admission_gap_us / 1e6 AS admission_gap_time,
    imbalance_gap_us / 1e6 AS imbalance_gap_time,
    unattributed_gap_us / 1e6 AS unattributed_gap_time,
    engine_gap_us / nullif(gap_us, 0)::DOUBLE AS engine_gap_share,
    admission_gap_us / nullif(gap_us, 0)::DOUBLE AS admission_gap_share,
    imbalance_gap_us / nullif(gap_us, 0)::DOUBLE AS imbalance_gap_share,
    unattributed_gap_us / nullif(gap_us, 0)::DOUBLE AS unattributed_gap_share,
    sampled_us / 1e6 AS sampled_seconds,
    CASE WHEN sampled_us > 0 THEN s_backlog_us / 1e6 END AS backlog_time_sampled,
    CASE WHEN sampled_us > 0 THEN s_gap_us / 1e6 END AS gap_time_sampled,
    s_gap_us / nullif(sampled_us, 0)::DOUBLE AS gap_fraction_sampled,
    s_gap_us / nullif(s_backlog_us, 0)::DOUBLE AS backlog_gap_fraction_sampled,
    s_in_flight_us::DOUBLE / nullif(sampled_us, 0) AS mean_in_flight_sampled,
    s_queue_us::DOUBLE / nullif(sampled_us, 0) AS mean_queue_depth_sampled,
    s_in_flight_us::DOUBLE / nullif(sampled_us, 0) / nullif(params.cap, 0) AS utilization_sampled,
    kv_sum / nullif(kv_us, 0) AS kv_cache_usage,
    kv_max AS kv_cache_usage_max,
    preemptions::BIGINT AS preemptions,
    -- A window with a queries increase (even of 0) takes the counters' ratio;
    -- only one without any takes the engines' reported rate.
    CASE WHEN prefix_queries IS NOT NULL THEN coalesce(prefix_hits, 0) / nullif(prefix_queries, 0)::DOUBLE
         ELSE hr_sum / nullif(hr_us, 0) END AS prefix_cache_hit_rate,
    coalesce(spec_accepted, 0) / nullif(spec_draft, 0)::DOUBLE AS spec_acceptance_rate,
    t_queue, ttft, t_first_token, t_stream, t_in_flight, t_total, tpot, stream_tps, end_to_end_tps,
    gateway_overhead,
    ttft_req, tpot_req, e2e_req,
    CASE WHEN params.has_slo THEN slo_met END AS slo_met,
    CASE WHEN params.has_slo THEN slo_met / nullif(secs, 0) END AS goodput,
    CASE WHEN params.has_slo THEN slo_met / nullif(requests, 0) END AS slo_attainment
FROM j, params
ORDER BY window_index;
