-- no_attempt_list: attempt_list of a run whose source numbered every span:
-- request_values takes every attempt from span_src.
CREATE OR REPLACE TABLE attempt_list AS SELECT NULL::INTEGER[] AS attempts;
