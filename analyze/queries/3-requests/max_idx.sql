-- max_idx: the largest idx of the spans as the variable max_idx, a constant
-- bound for delivered_bits and attempt_list. A connection's own: set on both.
SET VARIABLE max_idx = $max_idx::BIGINT;
