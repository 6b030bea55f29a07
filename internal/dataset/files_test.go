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
	write("summary.json", "{\n}\n")
	// Described side by side, listed in the order asked, the absent left
	// out; only a JSON Lines file's lines are rows (the digest is
	// sha256sum's of the four bytes).
	files, err := DescribeAll(dir, "absent.jsonl", "summary.json", "absent.parquet", "rejects.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != "summary.json" || files[0].Rows != nil || files[0].Size != 4 ||
		files[0].SHA256 != "d914176fd50bd7f565700006a31aa97b79d3ad17cee20c8e5ff2061d5cb74817" ||
		files[1].Name != "rejects.jsonl" || files[1].Rows == nil || *files[1].Rows != 2 {
		t.Fatalf("DescribeAll = %+v", files)
	}
	// A file that cannot be described fails the whole: a Parquet file
	// without its footer.
	write("windows.parquet", "PAR1")
	if _, err := DescribeAll(dir, "summary.json", "windows.parquet"); err == nil || !strings.Contains(err.Error(), "windows.parquet") {
		t.Errorf("DescribeAll of a broken Parquet file: %v, want its error", err)
	}
	os.Remove(filepath.Join(dir, "windows.parquet"))
	m := &schemas.Manifest{Files: files}
	if err := Verify(dir, m, "tpsreport analyze D"); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	for _, c := range []struct {
		name, change, reason string
	}{
		{"summary.json", "[\n]\n", "its SHA-256 differs"},
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
