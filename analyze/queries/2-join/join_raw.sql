-- join_raw: what the join reads of the gateway's and the engine's spans of a
-- run that holds both (docs/metrics.md "Gateway and engine"), from
-- spans_file; $gateway: the gateway sources, $engine: the engine sources.
-- join_raw, join_match, join_solo, join_cand, join_unpaired and
-- join_renames are the join's portable form: a build with DuckDB's Arrow
-- interface matches the candidates in Go instead (join_go.go), up to
-- maxMatchRows rows, and stores the same tables.
-- Only the columns that pair spans: idx (the row number), the role, ok and
-- replica (join_coverage, join_spans' renames), the join keys and the
-- instants (µs). join_spans reads the spans' other columns from spans_file.
--
-- Keys: a gateway span offers its span_id (k1) and request_id (k2), an engine
-- span its request_id (k2; k1 is NULL, not to store a million strings no
-- statement reads) and that id without vLLM V1's internal suffix
-- (-8 hex digits, join_match); each with the OpenAI id prefix (chatcmpl-,
-- cmpl-) and our attempt suffixes (#retryN, #N) removed. The prefix is cut
-- with starts_with, and the suffix's regular expression runs only on the ids
-- that hold a '#' (a few percent): a regular expression over every id cost
-- as much as the rest of the join's keys together.
--   lo, hi   a gateway span's [queued_at, released_at] (either, when the
--            other is missing); an engine span's first and last known instants
--   f        first_token_at
--   res      the time resolution (0 when exact)
CREATE OR REPLACE TABLE raw_spans AS
SELECT idx, is_gw, is_en, ok, replica,
    CASE WHEN contains(id1, '#') THEN regexp_replace(id1, '#(retry)?[0-9]+$', '') ELSE id1 END AS k1,
    CASE WHEN contains(id2, '#') THEN regexp_replace(id2, '#(retry)?[0-9]+$', '') ELSE id2 END AS k2,
    f, lo, hi, res
FROM (
    SELECT file_row_number AS idx, source IN $gateway AS is_gw, source IN $engine AS is_en,
        status = 'ok' AS ok, replica,
        CASE WHEN NOT source IN $gateway THEN NULL
             WHEN starts_with(span_id, 'chatcmpl-') THEN substr(span_id, 10)
             WHEN starts_with(span_id, 'cmpl-') THEN substr(span_id, 6) ELSE span_id END AS id1,
        CASE WHEN starts_with(request_id, 'chatcmpl-') THEN substr(request_id, 10)
             WHEN starts_with(request_id, 'cmpl-') THEN substr(request_id, 6) ELSE request_id END AS id2,
        epoch_us(first_token_at) AS f,
        CASE WHEN source IN $gateway THEN epoch_us(coalesce(queued_at, released_at))
             ELSE epoch_us(coalesce(queued_at, admitted_at, first_token_at, released_at)) END AS lo,
        CASE WHEN source IN $gateway THEN epoch_us(coalesce(released_at, queued_at))
             ELSE epoch_us(coalesce(released_at, last_token_at, first_token_at, admitted_at, queued_at)) END AS hi,
        coalesce(time_resolution_us, 0) AS res
    FROM spans_file
    WHERE source IN $gateway OR source IN $engine
);
