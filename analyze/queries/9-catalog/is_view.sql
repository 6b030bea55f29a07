-- is_view: 1 when $name is a view of this database (DROP VIEW), else 0 (DROP TABLE).
SELECT count(*) FROM duckdb_views() WHERE view_name = $name AND NOT internal;
