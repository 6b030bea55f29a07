package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Write renders everything into outDir: one PNG per chart, report.json,
// summary.md and report.html. Everything is rendered in memory first, then
// each file is written under a temporary name and renamed, so a failed or
// interrupted run leaves the previous report intact. It returns the paths
// written, in the order they were renamed into place (report.html last).
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
	files = append(files, outFile{"report.json", js.Bytes()}, outFile{"summary.md", md.Bytes()}, outFile{"report.html", page.Bytes()})
	return writeFiles(outDir, files)
}

type outFile struct {
	name string
	data []byte
}

// writeFiles writes every file to a temporary name in dir first and renames
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
