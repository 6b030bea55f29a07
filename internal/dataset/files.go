package dataset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// Describe returns the manifest entry of the file name in dir: its size,
// SHA-256 and, for Parquet and JSON Lines files, its rows.
func Describe(dir, name string) (schemas.DataFile, error) {
	return DescribeContext(context.Background(), dir, name)
}

// DescribeContext is Describe, given up when ctx is done.
func DescribeContext(ctx context.Context, dir, name string) (schemas.DataFile, error) {
	path := filepath.Join(dir, name)
	d := schemas.DataFile{Name: name}
	f, err := os.Open(path)
	if err != nil {
		return d, fmt.Errorf("read %q: %w", path, Unwrap(err))
	}
	defer f.Close()
	h := sha256.New()
	// Only a JSON Lines file's rows are its lines: a Parquet file's are in
	// its footer, and counting bytes of it would be wasted.
	jsonl := strings.HasSuffix(name, ".jsonl")
	var lines int64
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return d, fmt.Errorf("read %q: %w", path, err)
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if jsonl {
			lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		}
		d.Size += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return d, fmt.Errorf("read %q: %w", path, Unwrap(err))
		}
	}
	d.SHA256 = hex.EncodeToString(h.Sum(nil))
	switch {
	case strings.HasSuffix(name, ".parquet"):
		pf, err := parquet.OpenFile(f, d.Size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			return d, fmt.Errorf("read %q: %w", path, err)
		}
		rows := pf.NumRows()
		d.Rows = &rows
	case jsonl:
		d.Rows = &lines
	}
	return d, nil
}

// DescribeAll describes the files names of dir that exist, in order. The
// files are read side by side: hashing is most of the time, and a dataset's
// largest file (requests.parquet, 8 GB at 100 M spans) would otherwise keep
// the others waiting on one core.
func DescribeAll(dir string, names ...string) ([]schemas.DataFile, error) {
	type described struct {
		d   schemas.DataFile
		err error
		ok  bool // the file exists
	}
	all := make([]described, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		all[i].ok = true
		wg.Go(func() { all[i].d, all[i].err = Describe(dir, n) })
	}
	wg.Wait()
	var out []schemas.DataFile
	for _, x := range all {
		if !x.ok {
			continue
		}
		if x.err != nil {
			return nil, x.err
		}
		out = append(out, x.d)
	}
	return out, nil
}

// MismatchError says a file of a dataset is not the one its manifest
// describes: a dataset mixed by a kill or a concurrent writer, or edited.
type MismatchError struct {
	Path   string // the file
	Reason string // "size 10, manifest.json says 12", "missing", ...
	Fix    string // the command that rebuilds it
}

func (e *MismatchError) Error() string {
	s := fmt.Sprintf("%s does not match %s (%s): the dataset was mixed or edited", e.Path, schemas.ManifestFile, e.Reason)
	if e.Fix != "" {
		s += ". Try: " + e.Fix
	}
	return s
}

// Verify checks the files names of dir against the manifest's entries. With
// no names it checks every entry, and that every other visible file of dir is
// one. A named file that exists but is not listed is refused too: the
// manifest of a set that lacked it. A manifest without files (written before
// they were recorded) checks nothing. fix is the command a *MismatchError
// suggests.
func Verify(dir string, m *schemas.Manifest, fix string, names ...string) error {
	if len(m.Files) == 0 {
		return nil
	}
	extra := names
	if len(names) == 0 {
		all, err := visible(dir)
		if err != nil {
			return err
		}
		extra = all
	}
	for _, n := range extra {
		if n == schemas.ManifestFile || containsFile(m.Files, n) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			return &MismatchError{Path: filepath.Join(dir, n), Reason: "not listed in it", Fix: fix}
		}
	}
	for _, want := range m.Files {
		if len(names) > 0 && !contains(names, want.Name) {
			continue
		}
		path := filepath.Join(dir, want.Name)
		got, err := Describe(dir, want.Name)
		var reason string
		switch {
		case errors.Is(err, fs.ErrNotExist):
			reason = "missing"
		case err != nil && got.SHA256 == "":
			return err
		case got.Size != want.Size:
			reason = fmt.Sprintf("size %d, the manifest says %d", got.Size, want.Size)
		case got.SHA256 != want.SHA256:
			reason = "its SHA-256 differs"
		case want.Rows != nil && (got.Rows == nil || *got.Rows != *want.Rows):
			reason = "its row count differs"
		case err != nil:
			reason = err.Error()
		}
		if reason != "" {
			return &MismatchError{Path: path, Reason: reason, Fix: fix}
		}
	}
	return nil
}

func contains(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// SetFiles replaces the entries of m.Files named like those of add, keeping
// the others, sorted by name.
func SetFiles(m *schemas.Manifest, add []schemas.DataFile, remove ...string) {
	var out []schemas.DataFile
	for _, f := range m.Files {
		if !contains(remove, f.Name) && !containsFile(add, f.Name) {
			out = append(out, f)
		}
	}
	out = append(out, add...)
	sortFiles(out)
	m.Files = out
}

func containsFile(fs []schemas.DataFile, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

func sortFiles(fs []schemas.DataFile) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].Name < fs[j-1].Name; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}
