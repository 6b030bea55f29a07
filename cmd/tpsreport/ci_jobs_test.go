package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestCIJobsRunTheGate: the GitHub Actions workflow and the GitLab CI job of
// ci/ are YAML their services read (a workflow's jobs with steps, a GitLab
// job with a script), install the fast build, run the gate script that
// ci_gate.txtar tests, and post the comment it writes.
func TestCIJobsRunTheGate(t *testing.T) {
	for _, tc := range []struct {
		file string
		post string
	}{
		{"github-actions.yml", "gh pr comment \"$PR\" --edit-last --body-file out/comment.md"},
		{"gitlab-ci.yml", `--data-urlencode "body@out/comment.md"`},
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", "ci", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var commands []string
		switch tc.file {
		case "github-actions.yml":
			jobs, _ := doc["jobs"].(map[string]any)
			gate, _ := jobs["gate"].(map[string]any)
			steps, _ := gate["steps"].([]any)
			for _, s := range steps {
				if m, ok := s.(map[string]any); ok {
					if run, ok := m["run"].(string); ok {
						commands = append(commands, run)
					}
				}
			}
		case "gitlab-ci.yml":
			job, _ := doc["tpsreport-gate"].(map[string]any)
			script, _ := job["script"].([]any)
			for _, s := range script {
				if line, ok := s.(string); ok {
					commands = append(commands, line)
				}
			}
		}
		all := strings.Join(commands, "\n")
		for _, want := range []string{
			"go install -tags duckdb_arrow github.com/tpsreport/tpsreport/cmd/tpsreport@latest",
			"sh ci/tpsreport-gate.sh out logs/baseline logs/candidate",
			tc.post,
		} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no command runs %q; its commands:\n%s", tc.file, want, all)
			}
		}
	}
}
