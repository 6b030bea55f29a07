-- params: the one-row parameter table every per-window query joins ($t0, $t1,
-- $width, all µs; $pool_cap; $whole true when the one window is the whole run,
-- whose bounds are then the extent's); the SLO's bounds ($slo_ttft_us,
-- $slo_tpot in seconds, $slo_e2e_us; NULL when not part of it) and $has_slo. Windows are window_index = first … last.
CREATE OR REPLACE TABLE params AS
SELECT
    $t0::BIGINT AS t0,
    $t1::BIGINT AS t1,
    $width::BIGINT AS width,
    $t0::BIGINT // $width::BIGINT AS first,
    CASE WHEN $t1::BIGINT > $t0::BIGINT THEN ($t1::BIGINT - 1) // $width::BIGINT
         ELSE $t0::BIGINT // $width::BIGINT END AS last,
    $pool_cap::BIGINT AS cap,
    $whole::BOOLEAN AS whole,
    $slo_ttft_us::BIGINT AS slo_ttft_us,
    $slo_tpot::DOUBLE AS slo_tpot,
    $slo_e2e_us::BIGINT AS slo_e2e_us,
    $has_slo::BOOLEAN AS has_slo;
