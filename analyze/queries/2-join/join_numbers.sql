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
-- statement of their own: inside joined_engine the numbering cost more than
-- alone (at 1 M spans joined_engine took 1.8 s with it and 1.0 s without,
-- this statement 0.2-0.3 s).
CREATE OR REPLACE TABLE join_numbers AS
WITH pairs AS (
    SELECT gi, ei FROM join_solo UNION ALL SELECT gi, ei FROM join_pairs
), multi AS MATERIALIZED (
    SELECT file_row_number AS idx, request_id, span_id, queued_at
    FROM spans_file SEMI JOIN multi_requests USING (request_id)
    WHERE joined_row(source IN $engine, file_row_number)
)
SELECT multi.idx, (row_number() OVER (PARTITION BY multi.request_id
    ORDER BY coalesce(multi.queued_at, eq.queued_at) NULLS LAST, multi.span_id, multi.idx) - 1)::INTEGER AS n
FROM multi LEFT JOIN pairs ON pairs.gi = multi.idx
LEFT JOIN (SELECT file_row_number, queued_at FROM spans_file WHERE source IN $engine) eq ON eq.file_row_number = pairs.ei;
