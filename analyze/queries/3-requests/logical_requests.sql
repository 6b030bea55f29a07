-- logical_requests: each request that completed, at the release of its last span.
CREATE OR REPLACE VIEW logical_requests AS
SELECT request_id, rc, any_ok FROM request_facts WHERE rc IS NOT NULL;
