-- span_src: the spans as analysed, in a run without a gateway-engine join:
-- spans_file with its row numbers as idx, the key by which every later
-- statement finds a span. gw (the gateway's total time of a joined span) is
-- NULL.
CREATE OR REPLACE VIEW span_src AS
SELECT * EXCLUDE (file_row_number), file_row_number AS idx, NULL::BIGINT AS gw
FROM spans_file;
