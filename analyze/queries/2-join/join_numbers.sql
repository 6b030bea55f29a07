-- join_numbers: the attempt numbers of the joined spans (joined_engine) of
-- requests of two or more spans (docs/metrics.md "Attempt numbers"): a span
-- the source did not number (a LiteLLM log numbers none) gets row_number() − 1
-- over the spans of its request ordered by the joined queued_at (the
-- gateway's, else its engine span's when the gateway logged none; NULLs
-- last), span_id, then input order. A request of one span numbers it 0
-- (joined_engine), so the window runs over the requests of several spans only
-- (a few percent): over every row it took longer than the join.
--
-- The spans are joined_engine's rows (joined_row) whose request has several
-- (join_multi; the semi join passes no NULL request_id), numbered by a
-- statement of their own, which the joined file's assembly reads. Only the
-- spans without a queued_at of their own (a gateway's log nearly always has
-- one) look up their engine span's (missing), so that the pairs and the
-- engine's spans are not joined to every numbered span.
CREATE OR REPLACE TABLE join_numbers AS
WITH multi AS MATERIALIZED (
    SELECT file_row_number AS idx, request_id, span_id, queued_at
    FROM spans_file SEMI JOIN multi_requests USING (request_id)
    WHERE joined_row(source IN $engine, file_row_number)
), missing AS (
    -- The engine's queued_at, for the spans without one of their own only.
    SELECT m.idx, eq.queued_at
    FROM (SELECT idx FROM multi WHERE queued_at IS NULL) m
    JOIN (SELECT gi, ei FROM join_solo UNION ALL SELECT gi, ei FROM join_pairs) pairs ON pairs.gi = m.idx
    JOIN (SELECT file_row_number, queued_at FROM spans_file WHERE source IN $engine) eq ON eq.file_row_number = pairs.ei
)
SELECT multi.idx, (row_number() OVER (PARTITION BY multi.request_id
    ORDER BY coalesce(multi.queued_at, missing.queued_at) NULLS LAST, multi.span_id, multi.idx) - 1)::INTEGER AS n
FROM multi LEFT JOIN missing USING (idx);
