-- joined_row: whether a row of spans_file (is_engine: its source is an
-- engine's; row_number: its row number) is one of the joined spans' rows: a
-- span of another role, or an engine span no gateway span joined (the variable
-- joined_kept). joined_gateway and joined_engine each write a part of those
-- rows, which are put side by side by position, so both select them with this
-- one condition. A scalar lookup, not a join, keeps the scan's order.
CREATE OR REPLACE MACRO joined_row(is_engine, row_number) AS
    NOT is_engine OR coalesce(get_bit(getvariable('joined_kept'), row_number::INTEGER) = 1, false);
