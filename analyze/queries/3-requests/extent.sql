-- extent: the run extent in µs and whether any span has a time (docs/metrics.md "Run extent").
SELECT
    min(coalesce(queued_us, admitted_us, first_token_us, last_token_us, released_us)) AS t0,
    max(coalesce(released_us, last_token_us, first_token_us, admitted_us, queued_us)) AS t1
FROM spans;
