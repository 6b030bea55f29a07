package analyze

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed queries/*.sql
var queryFS embed.FS

// queries holds every named statement of queries/, loaded once.
var queries = mustLoadQueries()

func mustLoadQueries() map[string]string {
	m := map[string]string{}
	err := fs.WalkDir(queryFS, "queries", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := queryFS.ReadFile(path)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(path, "queries/"), ".sql")
		m[name] = string(b)
		return nil
	})
	if err != nil {
		panic(fmt.Sprintf("analyze: load queries: %v", err))
	}
	return m
}

// query returns the statement named name; an unknown name is a programming error.
func query(name string) string {
	q, ok := queries[name]
	if !ok {
		panic(fmt.Sprintf("analyze: no query %q", name))
	}
	return q
}

// queryNames lists the embedded statements, sorted (for the prepare-all test).
func queryNames() []string {
	names := make([]string, 0, len(queries))
	for n := range queries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sqlString quotes s as a SQL string literal. It is the one place where a value is
// spliced into SQL text, for COPY destinations, which DuckDB does not take as a
// parameter; the values are paths this package builds.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
