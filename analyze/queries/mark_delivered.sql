-- mark_delivered: flags each request's delivered span (request_facts).
UPDATE spans SET delivered = true
WHERE idx IN (SELECT delivered_idx FROM request_facts WHERE delivered_idx IS NOT NULL);
