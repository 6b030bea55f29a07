-- stage_logged: the parts of the latency budget (schemas.BudgetParts, unaccounted
-- left out) of which some attempt counted in the run (stage_budget) has a
-- stage, even of no length: a part no log records reads 0 in the budget
-- without having been measured (docs/metrics.md "Disaggregated serving").
SELECT DISTINCT CASE r.stage
        WHEN 'queue' THEN CASE WHEN r.role = 'decode' THEN 'decode_queue' ELSE 'prefill_queue' END
        ELSE r.stage END AS part
FROM stage_rows r JOIN stage_budget b USING (request_id, attempt);
