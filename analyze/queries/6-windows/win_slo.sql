-- win_slo: the requests completed in each window that met the SLO (params'
-- bounds; docs/metrics.md "Requests and SLOs"): delivered, with every given
-- bound held. An unknown ttft_req or e2e_req misses its bound; an unknown
-- tpot_req (a request of one output token) meets it, as vLLM's goodput
-- counts it. At the run grain (params.whole) the one window is the run.
CREATE OR REPLACE TABLE win_slo AS
SELECT least(completed_us // params.width, params.last) AS window_index,
       count(*) FILTER (WHERE (params.slo_ttft_us IS NULL OR ttft_req_us <= params.slo_ttft_us)
                          AND (params.slo_tpot IS NULL OR tpot_req IS NULL OR tpot_req <= params.slo_tpot)
                          AND (params.slo_e2e_us IS NULL OR e2e_req_us <= params.slo_e2e_us)) AS slo_met
FROM delivered_requests, params
WHERE completed_us BETWEEN params.t0 AND params.t1
GROUP BY ALL;
