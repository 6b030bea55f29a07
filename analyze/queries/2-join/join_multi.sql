-- join_multi: multi_requests (load_spans) of a joined run, from the rows of
-- its joined spans (joined_row) before their file is written: the requests
-- of two or more spans, a NULL request_id one request as GROUP BY makes it.
-- Each joined span keeps its own row's request_id (joined_gateway), so this
-- is the grouping multi_requests would make of the joined file; made here,
-- it also picks the spans join_numbers numbers, and the spans are grouped
-- by request once instead of twice. req (load_spans) is −1 less the
-- smallest row number of the request's rows: negative, so never a joined
-- span's idx.
CREATE OR REPLACE TABLE multi_requests AS
SELECT request_id, -1 - min(file_row_number) AS req
FROM spans_file
WHERE joined_row(source IN $engine, file_row_number)
GROUP BY request_id HAVING count(*) > 1;
