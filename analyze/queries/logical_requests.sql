-- logical_requests: each request that completed, at the release of its last span.
CREATE OR REPLACE TEMP TABLE logical_requests AS
SELECT request_id, max(r) AS rc, bool_or(ok) AS any_ok
FROM spans GROUP BY request_id HAVING max(r) IS NOT NULL;
