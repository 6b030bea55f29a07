-- span_times: span_src with its five instants as int64 µs since the epoch
-- (q a f l r), the one place they are converted; load_spans and request_values
-- read the spans through it.
CREATE OR REPLACE VIEW span_times AS
SELECT *,
    epoch_us(queued_at) AS q, epoch_us(admitted_at) AS a, epoch_us(first_token_at) AS f,
    epoch_us(last_token_at) AS l, epoch_us(released_at) AS r
FROM span_src;
