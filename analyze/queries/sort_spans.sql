-- sort_spans: stores the spans in input order (idx) when span_src did not give
-- them in that order (spans_in_order).
CREATE OR REPLACE TEMP TABLE spans AS SELECT * FROM spans ORDER BY idx;
