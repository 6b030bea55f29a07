-- params: the one-row parameter table every per-window query joins ($1 t0, $2 t1,
-- $3 width, all µs; $4 the pool cap; $5 true when the one window is the whole run,
-- whose bounds are then the extent's). Windows are k = first … last.
CREATE OR REPLACE TABLE p AS
SELECT
    $1::BIGINT AS t0,
    $2::BIGINT AS t1,
    $3::BIGINT AS width,
    $1::BIGINT // $3::BIGINT AS first,
    CASE WHEN $2::BIGINT > $1::BIGINT THEN ($2::BIGINT - 1) // $3::BIGINT
         ELSE $1::BIGINT // $3::BIGINT END AS last,
    $4::BIGINT AS cap,
    $5::BOOLEAN AS whole;
