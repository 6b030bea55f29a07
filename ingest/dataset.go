package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tpsreport/tpsreport/schemas"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// datasetFiles are the files ingest writes.
var datasetFiles = []string{schemas.SpansFile, schemas.SamplesFile, schemas.ManifestFile, schemas.RejectsFile}

// dataset is a run dataset being written. Every output goes to a temporary
// file in the directory (".spans.parquet.tmp-1f3a..."), so that it is on the
// same file system, and is renamed into place only by commit. Until then the
// previous outputs stay untouched; abort removes the temporary files and any
// directory the dataset created.
type dataset struct {
	dir       string
	opened    time.Time // when this ingest began; older temporary files are a killed one's
	made      []string  // directories created, outermost first
	files     []*outFile
	committed bool

	// replaced is the run_id of the dataset the directory held, which
	// commit replaces; replacedUnnamed says it held one whose manifest
	// names no run (missing or unreadable).
	replaced        string
	replacedUnnamed bool
}

type outFile struct {
	*os.File
	tmp, final string
}

// openDataset creates dir if it is missing.
func openDataset(dir string) (*dataset, error) {
	d := &dataset{dir: dir, opened: time.Now()}
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("output directory %q: %q is not a directory", dir, p)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("output directory %q: %w", dir, unwrapPath(err))
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			d.abort()
			return nil, fmt.Errorf("create output directory %q: %w", dir, unwrapPath(err))
		}
		d.made = append(d.made, missing[i])
	}
	if len(missing) == 0 {
		d.previous()
	}
	return d, nil
}

// previous notes which dataset, if any, the directory holds.
func (d *dataset) previous() {
	b, err := os.ReadFile(filepath.Join(d.dir, schemas.ManifestFile))
	if err != nil {
		_, serr := os.Stat(filepath.Join(d.dir, schemas.SpansFile))
		d.replacedUnnamed = serr == nil
		return
	}
	var m struct {
		RunID string `json:"run_id"`
	}
	if json.Unmarshal(b, &m) != nil || m.RunID == "" {
		d.replacedUnnamed = true
		return
	}
	d.replaced = m.RunID
}

// create opens a temporary file that commit renames to name.
func (d *dataset) create(name string) (*outFile, error) {
	final := filepath.Join(d.dir, name)
	for range 100 {
		tmp := filepath.Join(d.dir, "."+name+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create %q: %w", final, unwrapPath(err))
		}
		o := &outFile{File: f, tmp: tmp, final: final}
		d.files = append(d.files, o)
		return o, nil
	}
	return nil, fmt.Errorf("create %q: no free temporary name", final)
}

// commit syncs and closes every file, removes analyze's outputs of the
// previous data (schemas.DerivedFiles) and renames the files into place in the order
// they were created (create the manifest last: it is renamed last).
//
// The derived files are first renamed aside, and deleted only once every
// new file is in place: if moving them aside or renaming the first new file
// fails, they are put back and the directory is as it was. A failure after
// that may leave some of the new files renamed.
func (d *dataset) commit() error {
	for _, o := range d.files {
		if err := o.Sync(); err != nil {
			return fmt.Errorf("write %q: %w", o.final, unwrapPath(err))
		}
		if err := o.Close(); err != nil && !errors.Is(err, fs.ErrClosed) {
			return fmt.Errorf("write %q: %w", o.final, unwrapPath(err))
		}
	}
	var aside []*outFile // derived files moved to a temporary name
	restore := func() {
		for _, a := range aside {
			_ = os.Rename(a.tmp, a.final)
		}
	}
	for _, name := range schemas.DerivedFiles {
		p := filepath.Join(d.dir, name)
		tmp, err := d.asideName(name)
		if err == nil {
			err = os.Rename(p, tmp)
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			restore()
			return fmt.Errorf("remove stale %q: %w", p, unwrapPath(err))
		}
		aside = append(aside, &outFile{tmp: tmp, final: p})
	}
	for i, o := range d.files {
		if err := os.Rename(o.tmp, o.final); err != nil {
			if i == 0 {
				restore()
			}
			return fmt.Errorf("rename %q: %w", o.final, unwrapPath(err))
		}
	}
	d.committed = true
	for _, a := range aside {
		_ = os.Remove(a.tmp)
	}
	d.removeLeftovers()
	// Make the renames durable; not every file system can sync a directory.
	if dir, err := os.Open(d.dir); err == nil {
		_ = dir.Sync()
		_ = dir.Close()
	}
	return nil
}

// removeLeftovers removes the temporary files of earlier ingests into the
// directory that were killed before they could clean up (SIGKILL, a power
// cut): those of our outputs' names not written to since this ingest began.
// A concurrent ingest's files are being written, so they are newer and stay.
func (d *dataset) removeLeftovers() {
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTempName(e.Name()) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(d.opened) {
			_ = os.Remove(filepath.Join(d.dir, e.Name()))
		}
	}
}

// isTempName reports whether name is one create gives an output's temporary
// file, or commit a derived file it moves aside.
func isTempName(name string) bool {
	for _, out := range datasetFiles {
		if strings.HasPrefix(name, "."+out+".tmp-") {
			return true
		}
	}
	for _, out := range schemas.DerivedFiles {
		if strings.HasPrefix(name, "."+out+".old-") {
			return true
		}
	}
	return false
}

// asideName returns a free name to move the derived file name aside to.
func (d *dataset) asideName(name string) (string, error) {
	for range 100 {
		p := filepath.Join(d.dir, "."+name+".old-"+strconv.FormatUint(rand.Uint64(), 36))
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no free temporary name")
}

// abort removes the temporary files and the directories the dataset made
// (if empty). It does nothing after a successful commit.
func (d *dataset) abort() {
	if d.committed {
		return
	}
	for _, o := range d.files {
		_ = o.Close()
		_ = os.Remove(o.tmp)
	}
	d.files = nil
	for i := len(d.made) - 1; i >= 0; i-- {
		_ = os.Remove(d.made[i])
	}
	d.made = nil
}

// unwrapPath drops the *fs.PathError wrapper, whose text repeats the path
// our messages already quote.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
