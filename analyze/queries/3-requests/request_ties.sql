-- request_ties: the delivered span of each request with two or more successful
-- spans (multi_facts: request_facts): the first by released_at (NULLs last), ties by
-- span_id, then input order. Usually there is no such request and the UPDATE
-- reads no span; span_ids come from span_src (load_spans leaves them out).
-- IS NOT DISTINCT FROM keeps a NULL request_id (req) one request, as GROUP BY does.
UPDATE multi_facts SET delivered_idx = t.delivered_idx
FROM (
    SELECT s.req,
           min_by(s.idx, (coalesce(s.released_us, 9223372036854775807), s.released_us IS NULL, src.span_id, s.idx)) AS delivered_idx
    FROM spans s JOIN (SELECT req FROM multi_facts WHERE n_ok > 1) m
        ON s.req IS NOT DISTINCT FROM m.req
    JOIN span_src src ON src.idx = s.idx
    WHERE s.ok
    GROUP BY s.req
) t
WHERE multi_facts.req IS NOT DISTINCT FROM t.req;
