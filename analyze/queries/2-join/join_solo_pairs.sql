-- join_solo_pairs: join_match's pairs (gateway row gi, engine row ei), for
-- join_solo settled in Go (join_solo.go), which counts each span's partners.
SELECT gi, ei FROM join_match;
