package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/schollz/progressbar/v3"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// source is one input to read, after expanding directories and globs.
type source struct {
	path   string // as given or found; "-" for stdin
	size   int64  // stored size from stat; -1 for stdin
	format string // from a FORMAT:PATH argument; "" means Options.Format
	// dir is the directory argument (or glob match) that the file was found
	// in, "" for a file named on the command line or matched by a glob. Only
	// such found files may be ignored when no format recognises them: a file
	// the user named is meant to be read.
	dir string
}

// splitFormat splits an input argument FORMAT:PATH (litellm:gw/*.json) into
// its format and path. The part before the first colon is a format only when
// it looks like one (two or more letters, digits, '-' and '_'; a single
// letter is a Windows drive) and the whole argument is not a path that
// exists or a glob that matches; then a name that is no format is an error
// with a suggestion, rather than a file that cannot be found. Any other
// argument is a plain path.
func splitFormat(arg string) (format, path string, err error) {
	name, rest, ok := strings.Cut(arg, ":")
	if !ok || rest == "" || !looksLikeFormat(name) || isPath(arg) {
		return "", arg, nil
	}
	if _, known := formats[name]; known || name == FormatAuto {
		return name, rest, nil
	}
	return "", "", unknownFormat(name)
}

// isPath reports whether arg names a file or directory, or is a glob that
// matches one.
func isPath(arg string) bool {
	if _, err := os.Lstat(arg); err == nil {
		return true
	}
	if isGlob(arg) {
		m, _ := filepath.Glob(arg)
		return len(m) > 0
	}
	return false
}

// looksLikeFormat reports whether s could be meant as a format name.
func looksLikeFormat(s string) bool {
	if len(s) < 2 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

const stdinName = "-"

// expandInputs turns the command-line inputs into a list of files, in the
// order given: a directory becomes the regular files under it (recursively,
// sorted, skipping hidden names), a glob its sorted matches, "-" stdin. A
// file listed twice is read once. Files under exclude (the output
// directory) are left out, so a dataset is never read back as input.
func expandInputs(args []string, exclude string) ([]source, error) {
	if len(args) == 0 {
		return nil, errors.New("no input given (want files, directories, globs or - for stdin)")
	}
	excludeAbs, _ := filepath.Abs(exclude)
	var out []source
	seen := map[string]bool{}
	format := "" // of the argument being expanded
	dir := ""    // the directory being walked
	add := func(p string, size int64) {
		key := p
		if p != stdinName {
			if abs, err := filepath.Abs(p); err == nil {
				key = abs
			}
			if exclude != "" && (key == excludeAbs || strings.HasPrefix(key, excludeAbs+string(filepath.Separator))) {
				return
			}
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, source{path: p, size: size, format: format, dir: dir})
		}
	}
	walk := func(root string) error {
		dir = root
		defer func() { dir = "" }()
		return walkInputs(root, add)
	}
	for _, arg := range args {
		var err error
		if format, arg, err = splitFormat(arg); err != nil {
			return nil, err
		}
		if arg == stdinName {
			add(stdinName, -1)
			continue
		}
		fi, err := os.Stat(arg)
		switch {
		case err == nil && fi.IsDir():
			n := len(out)
			if err := walk(arg); err != nil {
				return nil, err
			}
			if len(out) == n {
				return nil, fmt.Errorf("no input files in directory %q", arg)
			}
		case err == nil:
			if err := notADevice(arg, fi); err != nil {
				return nil, err
			}
			add(arg, fi.Size())
		case errors.Is(err, fs.ErrNotExist) && isGlob(arg):
			matches, err := filepath.Glob(arg)
			if err != nil {
				return nil, fmt.Errorf("bad input pattern %q: %w", arg, err)
			}
			n := len(out)
			showHidden := strings.HasPrefix(filepath.Base(arg), ".")
			for _, m := range matches {
				if !showHidden && strings.HasPrefix(filepath.Base(m), ".") {
					continue
				}
				fi, err := os.Stat(m)
				if err != nil {
					return nil, fmt.Errorf("open input %q: %w", m, dataset.Unwrap(err))
				}
				if fi.IsDir() {
					if err := walk(m); err != nil {
						return nil, err
					}
				} else {
					if err := notADevice(m, fi); err != nil {
						return nil, err
					}
					add(m, fi.Size())
				}
			}
			if len(out) == n {
				return nil, fmt.Errorf("no input matched %q", arg)
			}
		default:
			return nil, fmt.Errorf("open input %q: %w", arg, dataset.Unwrap(err))
		}
	}
	return out, nil
}

func isGlob(p string) bool { return strings.ContainsAny(p, `*?[`) }

// notADevice refuses a character or block device as input: /dev/zero or
// /dev/urandom never end, and a disk is no log. A named pipe (FIFO) is
// read like stdin.
func notADevice(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeCharDevice != 0:
		return fmt.Errorf("input %q is a character device, not a log file. Try a file, a named pipe, or - for stdin", path)
	case fi.Mode()&fs.ModeDevice != 0:
		return fmt.Errorf("input %q is a block device, not a log file. Try a file, a named pipe, or - for stdin", path)
	}
	return nil
}

// walkInputs adds the regular files under dir in lexical order, skipping
// hidden files and directories. Symbolic links to files are followed, to
// directories not.
func walkInputs(dir string, add func(string, int64)) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read input directory %q: %w", p, dataset.Unwrap(err))
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("open input %q: %w", p, dataset.Unwrap(err))
		}
		if fi.Mode().IsRegular() {
			add(p, fi.Size())
		}
		return nil
	})
}

// Compression magic numbers.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// openInput is an input opened for reading.
type openInput struct {
	name        string
	compression string // "", "gzip" or "zstd"
	file        *os.File
	stored      *storedReader
	data        *bufio.Reader // the decompressed bytes
	zr          *zstd.Decoder
	gz          *gzipMembers // gzip input: says whether garbage followed the data
}

// gzipMembers decompresses the members of a gzip file one after the other
// and, as gzip(1) does, ignores bytes after the last member that do not
// start another one (a file padded, or appended to, after compression):
// garbage says so, for a warning. A member that is cut short or corrupt is
// still an error.
type gzipMembers struct {
	br      *bufio.Reader
	zr      *gzip.Reader
	done    bool
	garbage bool
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for !g.done {
		n, err := g.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		// The member ended: another one, the end, or garbage.
		next, perr := g.br.Peek(len(gzipMagic))
		switch {
		case bytes.Equal(next, gzipMagic):
			if err := g.zr.Reset(g.br); err != nil {
				return n, err
			}
			g.zr.Multistream(false)
		case len(next) == 0 && perr == io.EOF:
			g.done = true
		case perr != nil && perr != io.EOF:
			return n, perr
		default:
			g.done, g.garbage = true, true
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, io.EOF
}

// storedReader counts the stored bytes, reports their progress and has them
// hashed (SHA-256, for the manifest) on a goroutine of its own, so that
// hashing overlaps decoding instead of lengthening the reading goroutine. It
// reads the input in blocks of hashBlock bytes: the hasher gets each block in
// order and hands it back once hashed; Read serves the block meanwhile. At
// most hashBlocks blocks are in flight, which bounds memory and how far
// reading may run ahead of hashing.
//
// Read and finish are called from one goroutine at a time; close stops the
// hasher.
type storedReader struct {
	r   io.Reader
	n   int64
	bar *progressbar.ProgressBar

	unread []byte // of the current block
	err    error  // from r, returned once the current block is served
	made   int    // blocks allocated

	free   chan []byte   // hashed blocks, to refill
	todo   chan []byte   // read blocks, to hash in order
	hashed chan struct{} // closed when the hasher is done
	h      hash.Hash
	closed bool
}

const (
	hashBlock  = 1 << 20
	hashBlocks = 4
)

func newStoredReader(r io.Reader, bar *progressbar.ProgressBar) *storedReader {
	s := &storedReader{
		r:      r,
		bar:    bar,
		free:   make(chan []byte, hashBlocks),
		todo:   make(chan []byte, hashBlocks),
		hashed: make(chan struct{}),
		h:      sha256.New(),
	}
	go s.hash()
	return s
}

// hash runs on its own goroutine until todo is closed.
func (s *storedReader) hash() {
	defer close(s.hashed)
	for b := range s.todo {
		s.h.Write(b)
		s.free <- b[:cap(b)] // never blocks: free holds every block
	}
}

func (s *storedReader) Read(p []byte) (int, error) {
	if len(s.unread) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		var block []byte
		select {
		case block = <-s.free:
		default:
			if s.made < hashBlocks {
				s.made++
				block = make([]byte, hashBlock)
			} else {
				block = <-s.free
			}
		}
		n, err := s.r.Read(block)
		s.err = err
		if n == 0 {
			s.free <- block
			return 0, err
		}
		s.n += int64(n)
		if s.bar != nil {
			_ = s.bar.Add64(int64(n))
		}
		s.todo <- block[:n]
		s.unread = block[:n]
	}
	n := copy(p, s.unread)
	s.unread = s.unread[n:]
	return n, nil
}

// sum waits for the hasher and returns the SHA-256 of the bytes read.
func (s *storedReader) sum() []byte {
	s.close()
	<-s.hashed
	return s.h.Sum(nil)
}

// close stops the hasher once it has hashed what it was given.
func (s *storedReader) close() {
	if !s.closed {
		s.closed = true
		close(s.todo)
	}
}

// open opens src and sets up decompression, chosen by the magic bytes; an
// extension that promises compression the bytes do not have is an error.
func open(src source, stdin io.Reader, bar *progressbar.ProgressBar) (*openInput, error) {
	in := &openInput{name: src.path}
	var r io.Reader
	if src.path == stdinName {
		if stdin == nil {
			return nil, errors.New("read stdin: no standard input")
		}
		r = stdin
	} else {
		f, err := os.Open(src.path)
		if err != nil {
			return nil, fmt.Errorf("open input %q: %w", src.path, dataset.Unwrap(err))
		}
		in.file = f
		r = f
	}
	in.stored = newStoredReader(r, bar)
	// One buffer over the stored bytes: it serves the magic bytes, the
	// decompressors and, for plain input, the readers, which read into
	// buffers of their own as large as it is and so mostly bypass it.
	br := bufio.NewReaderSize(in.stored, scan.SniffBytes)
	magic, err := br.Peek(len(zstdMagic))
	if err != nil && err != io.EOF {
		in.close()
		return nil, in.readError(err)
	}
	ext := strings.ToLower(filepath.Ext(src.path))
	var data io.Reader
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		in.compression = "gzip"
		zr, err := gzip.NewReader(br)
		if err != nil {
			in.close()
			return nil, in.readError(err)
		}
		zr.Multistream(false)
		in.gz = &gzipMembers{br: br, zr: zr}
		data = in.gz
	case bytes.HasPrefix(magic, zstdMagic):
		in.compression = "zstd"
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			in.close()
			return nil, in.readError(err)
		}
		in.zr = zr
		data = zr
	case ext == ".gz" || ext == ".gzip":
		in.compression = "gzip"
		in.close()
		if len(magic) == 0 {
			return nil, in.readError(io.ErrUnexpectedEOF)
		}
		return nil, fmt.Errorf("read %q: not gzip data (wrong magic bytes)", src.path)
	case ext == ".zst" || ext == ".zstd":
		in.compression = "zstd"
		in.close()
		if len(magic) == 0 {
			return nil, in.readError(io.ErrUnexpectedEOF)
		}
		return nil, fmt.Errorf("read %q: not zstd data (wrong magic bytes)", src.path)
	}
	if data == nil {
		in.data = br
	} else {
		in.data = bufio.NewReaderSize(data, scan.SniffBytes)
	}
	return in, nil
}

// head returns the first bytes of the decompressed input without consuming
// them, for format detection.
func (in *openInput) head() ([]byte, error) {
	b, err := in.data.Peek(scan.SniffBytes)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, in.readError(err)
	}
	return b, nil
}

// finish reads what is left of the stored bytes, so that the hash and size
// cover the whole input, and returns the manifest entry.
func (in *openInput) finish(format string) (schemas.InputFile, error) {
	if _, err := io.Copy(io.Discard, in.stored); err != nil {
		return schemas.InputFile{}, in.readError(err)
	}
	return schemas.InputFile{
		Path:   in.name,
		Format: format,
		Size:   in.stored.n,
		SHA256: hex.EncodeToString(in.stored.sum()),
	}, nil
}

func (in *openInput) close() {
	if in.stored != nil {
		in.stored.close()
	}
	if in.zr != nil {
		in.zr.Close()
	}
	if in.file != nil {
		_ = in.file.Close()
	}
}

// readError says which input could not be read, with a hint for truncated
// compressed files.
func (in *openInput) readError(err error) error {
	var le *scan.EndlessLineError
	if errors.As(err, &le) {
		return &ParseError{File: in.name, Line: le.Line, Err: le}
	}
	err = dataset.Unwrap(err)
	if in.compression != "" && errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("read %q: %w (truncated %s?)", in.name, err, in.compression)
	}
	return fmt.Errorf("read %q: %w", in.name, err)
}
