package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpsreport/tpsreport/internal/dataset"
)

// Write renders everything into outDir: one PNG per chart, report.json,
// summary.md, in.Extra and report.html. Everything is rendered in memory
// first, then written into a stage beside outDir that replaces it as a whole
// (internal/dataset), so a failed or interrupted run leaves the previous
// report intact and a reader never sees files of two reports. A non-empty
// outDir that holds no report is refused: its files would be replaced. It
// returns the paths written, report.html last.
func Write(outDir string, in Input) ([]string, error) {
	d := newDocument(in)
	charts, err := renderFigures(d.Charts)
	if err != nil {
		return nil, err
	}
	files := make([]outFile, 0, len(charts)+3)
	for _, c := range charts {
		files = append(files, outFile{c.File(), c.PNG})
	}
	var js, md, page bytes.Buffer
	if err := writeJSON(&js, d); err != nil {
		return nil, err
	}
	if err := writeMarkdown(&md, d); err != nil {
		return nil, err
	}
	if err := writeHTML(&page, d, charts); err != nil {
		return nil, err
	}
	files = append(files, outFile{"report.json", js.Bytes()}, outFile{"summary.md", md.Bytes()})
	for _, f := range in.Extra {
		files = append(files, outFile{f.Name, f.Data})
	}
	files = append(files, outFile{"report.html", page.Bytes()})
	return writeSet(outDir, files)
}

// File is a file written with a report, in the same commit (Input.Extra).
type File struct {
	Name string
	Data []byte
}

// isReportFile reports whether name is a file a report writes: its page,
// its data, its summary, compare's verdict, a chart.
func isReportFile(name string) bool {
	switch name {
	case "report.html", "report.json", "summary.md", "verdict.json":
		return true
	}
	return strings.HasSuffix(name, ".png")
}

// writeSet writes files as the whole content of dir (see Write).
func writeSet(dir string, files []outFile) ([]string, error) {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		// Hidden entries (a checkout's .git, a .env) do not count: they
		// are carried over into the new report, as is anything else that
		// is not the report's (Keep).
		names, err := dataset.Visible(dir)
		if err != nil {
			return nil, fmt.Errorf("output directory %q: %w", dir, err)
		}
		if len(names) > 0 && !slices.Contains(names, "report.html") && !slices.Contains(names, "report.json") {
			list := fmt.Sprintf("%q", names[:min(len(names), 3)])
			if len(names) > 3 {
				list = list[:len(list)-1] + " ...]"
			}
			return nil, fmt.Errorf("output directory %q holds files %s but no report: a report replaces the whole directory. Try an empty or new directory", dir, list)
		}
	}
	st, err := dataset.Begin(dir)
	if err != nil {
		return nil, err
	}
	defer st.Abort()
	// What a report directory holds beside a report (a reviewer's notes)
	// is carried over, never deleted; the report's own files are replaced.
	if err := st.Keep(isReportFile); err != nil {
		return nil, err
	}
	st.SetLast("report.html")
	paths := make([]string, 0, len(files))
	for _, f := range files {
		if err := writeFile(st.Dir(), f); err != nil {
			return nil, fmt.Errorf("write %s: %w", filepath.Join(dir, f.name), err)
		}
		paths = append(paths, filepath.Join(dir, f.name))
	}
	if err := st.Commit(); err != nil {
		return nil, err
	}
	return paths, nil
}

// writeFile writes f into dir, readable by all (0644: a web server or a CI
// job of another user serves it).
func writeFile(dir string, f outFile) error {
	p := filepath.Join(dir, f.name)
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := out.Write(f.data)
	serr := out.Sync()
	cerr := out.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return err
	}
	return os.Chmod(p, 0o644)
}

type outFile struct {
	name string
	data []byte
}

// writeFiles (the index beside the runs) writes every file to a temporary name in dir first and renames
// them only when all are on disk.
func writeFiles(dir string, files []outFile) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	temps := make([]string, 0, len(files))
	cleanup := func() {
		for _, t := range temps {
			_ = os.Remove(t)
		}
	}
	for _, f := range files {
		tmp, err := writeTemp(dir, f)
		if err != nil {
			cleanup()
			return nil, err
		}
		temps = append(temps, tmp)
	}
	paths := make([]string, 0, len(files))
	for i, f := range files {
		final := filepath.Join(dir, f.name)
		if err := os.Rename(temps[i], final); err != nil {
			cleanup()
			return paths, fmt.Errorf("rename %s: %w", final, err)
		}
		temps[i] = ""
		paths = append(paths, final)
	}
	return paths, nil
}

func writeTemp(dir string, f outFile) (string, error) {
	tmp, err := os.CreateTemp(dir, "."+f.name+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", f.name, err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(f.data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(name)
		return "", fmt.Errorf("write %s: %w", filepath.Join(dir, f.name), err)
	}
	if err := os.Chmod(name, 0o644); err != nil {
		_ = os.Remove(name)
		return "", fmt.Errorf("write %s: %w", filepath.Join(dir, f.name), err)
	}
	return name, nil
}
