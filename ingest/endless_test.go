package ingest

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// TestRunEndlessInputs: inputs that never end are refused or stopped with
// an error that says where: a device up front, an endless line (stdin fed
// from /dev/zero) at its line, endless whitespace between JSON documents;
// a named pipe is read like a file; a mapping file over 1 MiB is refused.
func TestRunEndlessInputs(t *testing.T) {
	defer func(v int64) { scan.MaxSkippedLine = v }(scan.MaxSkippedLine)
	scan.MaxSkippedLine = 4 << 20
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	good, _ := validInput(0, 3)

	for _, tt := range []struct {
		name    string
		format  string
		inputs  []string
		stdin   string // followed by endless bytes of endless
		endless byte
		want    string
	}{
		{"dev zero", "spans", []string{"/dev/zero"}, "", 0, `input "/dev/zero" is a character device, not a log file. Try a file, a named pipe, or - for stdin`},
		{"dev null", "auto", []string{"/dev/null"}, "", 0, `input "/dev/null" is a character device, not a log file. Try a file, a named pipe, or - for stdin`},
		{"dev zero glob", "spans", []string{"/dev/zer[o]"}, "", 0, `input "/dev/zero" is a character device, not a log file. Try a file, a named pipe, or - for stdin`},
		{"zeros on stdin", "spans", []string{"-"}, good, 0, `-:4: no newline in the first 4 MiB of the line: not a log of lines; the input is not read further`},
		{"zeros on stdin, auto", "auto", []string{"-"}, "", 0, `cannot detect the format of "-". Try --format with one of: ` + strings.Join(Formats(), ", ")},
		{"zeros on stdin, prometheus", "prometheus", []string{"-"}, "\n", 0, `-:2: no newline in the first 4 MiB of the line: not a log of lines; the input is not read further`},
		{"spaces on stdin, vllm-bench", "vllm-bench", []string{"-"}, "\n\n", ' ', `-:3: no newline in the first 4 MiB of the line: not a log of lines; the input is not read further`},
		{"zeros on stdin, litellm", "litellm", []string{"-"}, "", 0, `-:1: no newline in the first 4 MiB of the line: not a log of lines; the input is not read further`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdin := ioMulti(tt.stdin, &byteStream{c: tt.endless, n: 1 << 62})
			_, err := Run(context.Background(), Options{RunID: "r", Format: tt.format, OutDir: out, Inputs: tt.inputs, Stdin: stdin})
			if err == nil || err.Error() != tt.want {
				t.Errorf("got error\n  %v\nwant\n  %s", err, tt.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("output directory was created")
			}
		})
	}

	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.WriteString(good)
			f.Close()
		}()
		m, err := Run(context.Background(), Options{RunID: "r", Format: "spans", OutDir: out, Inputs: []string{fifo}})
		if err != nil {
			t.Fatal(err)
		}
		if want := (schemas.Counts{Read: 3, Written: 3}); m.Counts != want {
			t.Errorf("counts %+v, want %+v", m.Counts, want)
		}
	})

	t.Run("mapping", func(t *testing.T) {
		big := filepath.Join(dir, "big.yaml")
		writeFile(t, big, []byte("# "+strings.Repeat("x", 1<<20)+"\n"))
		if _, err := LoadMapping(big); err == nil || err.Error() != "mapping "+big+": larger than 1 MiB; a mapping file is a few lines of YAML" {
			t.Errorf("big mapping: %v", err)
		}
		if _, err := LoadMapping("/dev/zero"); err == nil || err.Error() != "read mapping /dev/zero: a device, not a file" {
			t.Errorf("/dev/zero mapping: %v", err)
		}
	})
}

// ioMulti reads s, then r.
func ioMulti(s string, r io.Reader) io.Reader { return io.MultiReader(strings.NewReader(s), r) }
