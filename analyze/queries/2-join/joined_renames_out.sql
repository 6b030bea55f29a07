-- joined_renames_out: the renames of unjoined gateway spans' replicas
-- (join_renames), a few rows, for the joined file's assembly in Go
-- (assemble.go).
SELECT g_rep, e_rep FROM join_renames WHERE g_rep IS NOT NULL AND e_rep IS NOT NULL
