-- join_reps_stream: join_solo_reps, join_solo's pairs counted by the gateway
-- span's replica (g_rep) and the engine span's (e_rep), both named, for
-- join_renames_go, from the Arrow stream join_reps_go (join_go.go).
CREATE OR REPLACE TABLE join_solo_reps AS
SELECT g_rep, e_rep, n FROM join_reps_go;
