-- multi_requests: the requests of two or more spans (a NULL request_id is one
-- request, as GROUP BY makes it), from span_src before load_spans, which marks
-- each span of another request solo. At 10 M spans about 3 % of the requests
-- have retries or duplicates: the request facts aggregate their spans only
-- (request_facts), and a solo span is its request's facts by itself. Grouping
-- every span with count(*) alone costs about half of grouping it with the
-- facts' aggregates, and the arrivals no longer join every first attempt to
-- its request (win_events). req, −1 less the smallest idx of its spans, is
-- the request's key in the spans table (load_spans): negative, so never a
-- solo span's idx.
CREATE OR REPLACE TABLE multi_requests AS
SELECT request_id, -1 - min(idx) AS req FROM span_src GROUP BY request_id HAVING count(*) > 1;
