-- request_values_unnumbered: request_values of a run with spans the source
-- left unnumbered: span_times put side by side, row by row, with the attempt
-- of every span in idx order (attempt_list), which a POSITIONAL JOIN does
-- keeping span_times' order. The pairing runs on one thread, so a run whose
-- source numbered every span reads span_times alone (request_values).
CREATE OR REPLACE VIEW request_values AS
SELECT
    span_times.* REPLACE (coalesce(span_times.attempt, attempt_list.attempt) AS attempt),
    t_queue(queued_us, admitted_us) AS t_queue, t_first_token(admitted_us, first_token_us) AS t_first_token, ttft(queued_us, first_token_us) AS ttft,
    t_stream(first_token_us, last_token_us) AS t_stream, t_in_flight(admitted_us, released_us) AS t_in_flight, t_total(queued_us, released_us) AS t_total,
    stream_tps(first_token_us, last_token_us, output_tokens) AS stream_tps,
    end_to_end_tps(admitted_us, released_us, output_tokens) AS end_to_end_tps,
    tpot(first_token_us, last_token_us, output_tokens) AS tpot, gateway_overhead(gw) AS gateway_overhead
FROM span_times POSITIONAL JOIN attempt_list;
