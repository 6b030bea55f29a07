-- span_times: span_src with its instants as int64 µs since the epoch
-- (queued_us, arrived_us: engine_arrived_at, admitted_us, first_token_us,
-- last_token_us, released_us), the one place they are converted; load_spans and request_values
-- read the spans through it.
CREATE OR REPLACE VIEW span_times AS
SELECT *,
    epoch_us(queued_at) AS queued_us, epoch_us(admitted_at) AS admitted_us, epoch_us(first_token_at) AS first_token_us,
    epoch_us(last_token_at) AS last_token_us, epoch_us(released_at) AS released_us,
    epoch_us(engine_arrived_at) AS arrived_us
FROM span_src;
