-- logical_requests: each request that completed, at the release of its last span.
CREATE OR REPLACE VIEW logical_requests AS
SELECT req, rc, any_ok FROM request_facts WHERE rc IS NOT NULL;
