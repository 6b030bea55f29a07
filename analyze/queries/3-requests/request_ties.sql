-- request_ties: the delivered span of each request with two or more successful
-- spans (multi_facts: request_facts): the first by released_at (NULLs last), ties by
-- span_id, then input order. Usually there is no such request and the UPDATE
-- reads no span; span_ids come from span_src (load_spans leaves them out).
-- IS NOT DISTINCT FROM keeps a NULL request_id one request, as GROUP BY does.
UPDATE multi_facts SET delivered_idx = t.delivered_idx
FROM (
    SELECT s.request_id,
           min_by(s.idx, (coalesce(s.released_us, 9223372036854775807), s.released_us IS NULL, src.span_id, s.idx)) AS delivered_idx
    FROM spans s JOIN (SELECT request_id FROM multi_facts WHERE n_ok > 1) m
        ON s.request_id IS NOT DISTINCT FROM m.request_id
    JOIN span_src src ON src.idx = s.idx
    WHERE s.ok
    GROUP BY s.request_id
) t
WHERE multi_facts.request_id IS NOT DISTINCT FROM t.request_id;
