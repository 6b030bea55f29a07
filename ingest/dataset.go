package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// datasetFiles are the files ingest writes.
var datasetFiles = []string{schemas.SpansFile, schemas.SamplesFile, schemas.StagesFile, schemas.ManifestFile, schemas.RejectsFile}

// runDataset is a run dataset being written. The whole directory is built
// in a stage beside it (internal/dataset) and swapped in by commit, so until
// then the previous dataset stays untouched, and a kill or a failure leaves
// it whole. The stage starts with the directory's other files (a user's
// notes), not with its data: ingest's files and analyze's derived ones
// (schemas.DerivedFiles) describe the old data and do not come along.
type runDataset struct {
	dir       string
	stage     *dataset.Stage
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
	tmp, final string // the file in the stage, and where it lands
}

// openDataset stages a dataset for dir, creating dir's missing parents. It
// refuses a non-empty directory that is not a dataset: replacing it would
// delete files tpsreport did not write.
func openDataset(dir string) (*runDataset, error) {
	d := &runDataset{dir: dir}
	var names []string
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		// Hidden entries (a checkout's .git, a .env) do not count: they
		// are carried over into the new dataset (dataset.Stage.Keep).
		if names, err = dataset.Visible(dir); err != nil {
			return nil, fmt.Errorf("output directory %q: %w", dir, err)
		}
	}
	if len(names) > 0 {
		d.previous()
		if !d.isDataset() {
			return nil, fmt.Errorf("output directory %q holds files %s but no tpsreport dataset: ingest replaces the whole directory. Try an empty or new directory", dir, listNames(names))
		}
	}
	var err error
	d.stage, err = dataset.Begin(dir)
	if err != nil {
		return nil, err
	}
	if err := d.stage.Keep(func(name string) bool {
		return slices.Contains(datasetFiles, name) || slices.Contains(schemas.DerivedFiles, name)
	}); err != nil {
		d.abort()
		return nil, err
	}
	return d, nil
}

func listNames(names []string) string {
	s := fmt.Sprintf("%q", names[:min(len(names), 3)])
	if len(names) > 3 {
		s = s[:len(s)-1] + " ...]"
	}
	return s
}

// manifestTool is the manifest of the directory, if any, for isDataset.
type manifestTool struct {
	RunID string `json:"run_id"`
	Tool  string `json:"tool"`
}

// previous notes which dataset, if any, the directory holds.
func (d *runDataset) previous() {
	b, err := os.ReadFile(filepath.Join(d.dir, schemas.ManifestFile))
	if err != nil {
		_, serr := os.Stat(filepath.Join(d.dir, schemas.SpansFile))
		d.replacedUnnamed = serr == nil
		return
	}
	var m manifestTool
	if json.Unmarshal(b, &m) != nil || m.RunID == "" {
		d.replacedUnnamed = true
		return
	}
	d.replaced = m.RunID
}

// isDataset reports whether the directory holds a run dataset: a manifest
// written by tpsreport, or spans.parquet (a dataset whose manifest was lost
// or cut).
func (d *runDataset) isDataset() bool {
	if _, err := os.Stat(filepath.Join(d.dir, schemas.SpansFile)); err == nil {
		return true
	}
	b, err := os.ReadFile(filepath.Join(d.dir, schemas.ManifestFile))
	var m manifestTool
	return err == nil && json.Unmarshal(b, &m) == nil && m.Tool == "tpsreport"
}

// create opens the file name in the stage.
func (d *runDataset) create(name string) (*outFile, error) {
	final := filepath.Join(d.dir, name)
	tmp := filepath.Join(d.stage.Dir(), name)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, fmt.Errorf("create %q: %w", final, dataset.Unwrap(err))
	}
	o := &outFile{File: f, tmp: tmp, final: final}
	d.files = append(d.files, o)
	return o, nil
}

// finish syncs and closes every file created so far.
func (d *runDataset) finish() error {
	for _, o := range d.files {
		if err := o.Sync(); err != nil && !errors.Is(err, fs.ErrClosed) {
			return fmt.Errorf("write %q: %w", o.final, dataset.Unwrap(err))
		}
		if err := o.Close(); err != nil && !errors.Is(err, fs.ErrClosed) {
			return fmt.Errorf("write %q: %w", o.final, dataset.Unwrap(err))
		}
	}
	return nil
}

// describe returns the manifest entries of the data files written so far.
func (d *runDataset) describe() ([]schemas.DataFile, error) {
	if err := d.finish(); err != nil {
		return nil, err
	}
	return dataset.DescribeAll(d.stage.Dir(), schemas.SpansFile, schemas.SamplesFile, schemas.StagesFile, schemas.RejectsFile)
}

// commit syncs and closes every file and swaps the stage in as the
// dataset: the old one, its analysis included, is replaced as a whole.
func (d *runDataset) commit() error {
	if err := d.finish(); err != nil {
		return err
	}
	if err := d.stage.Commit(); err != nil {
		return err
	}
	d.committed = true
	return nil
}

// abort removes the stage and the directories it made. It does nothing
// after a successful commit.
func (d *runDataset) abort() {
	if d.committed {
		return
	}
	for _, o := range d.files {
		_ = o.Close()
	}
	d.files = nil
	if d.stage != nil {
		d.stage.Abort()
	}
}
