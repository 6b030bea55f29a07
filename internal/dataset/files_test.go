package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("rejects.jsonl", "{}\n{}\n")
	write("summary.json", "{}")
	files, err := DescribeAll(dir, "rejects.jsonl", "summary.json", "absent.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Rows == nil || *files[0].Rows != 2 || files[1].Rows != nil {
		t.Fatalf("DescribeAll = %+v", files)
	}
	m := &schemas.Manifest{Files: files}
	if err := Verify(dir, m, "tpsreport analyze D"); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	for _, c := range []struct {
		name, change, reason string
	}{
		{"summary.json", "[]", "its SHA-256 differs"},
		{"rejects.jsonl", "{}\n", "size 3, the manifest says 6"},
		{"windows.parquet", "x", "not listed in it"},
	} {
		old, _ := os.ReadFile(filepath.Join(dir, c.name))
		write(c.name, c.change)
		err := Verify(dir, m, "tpsreport analyze D", c.name)
		var mm *MismatchError
		if !errors.As(err, &mm) || mm.Reason != c.reason || !strings.HasSuffix(err.Error(), "Try: tpsreport analyze D") {
			t.Errorf("%s changed: %v, want reason %q", c.name, err, c.reason)
		}
		if old == nil {
			os.Remove(filepath.Join(dir, c.name))
		} else {
			write(c.name, string(old))
		}
	}
	os.Remove(filepath.Join(dir, "summary.json"))
	if err := Verify(dir, m, ""); err == nil || !strings.Contains(err.Error(), "(missing)") {
		t.Errorf("missing file: %v", err)
	}
	if err := Verify(dir, &schemas.Manifest{}, ""); err != nil {
		t.Errorf("manifest without files: %v, want unchecked", err)
	}
}
