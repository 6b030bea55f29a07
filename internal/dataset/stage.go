package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// mode is how a stage is swapped in.
type mode int

const (
	// modeNew: the target did not exist; the stage is renamed to it.
	modeNew mode = iota + 1
	// modeExchange: one renameat2(RENAME_EXCHANGE) swaps stage and target;
	// the old set is then removed under the stage's name.
	modeExchange
	// modeAside: where exchange is not supported, the target is renamed
	// aside (.NAME.old-PID-RANDOM), then the stage to the target. A kill in
	// between leaves no target; Recover puts the old one back.
	modeAside
	// modeInPlace: the target cannot be renamed (a mount point, the
	// working directory, a read-only parent). The stage is inside it
	// (.stage-PID-RANDOM) and its entries are renamed one by one, the
	// last one (manifest.json) last: a kill in between leaves files that
	// do not match the manifest, which Verify refuses.
	modeInPlace
)

func (m mode) String() string {
	return [...]string{"", "new", "exchange", "aside", "in-place"}[m]
}

// Test hooks. hook, when set, is called before and after every step of a
// commit with the step's name; returning true "kills" the process there:
// Commit returns ErrKilled at once and the stage is left as a SIGKILL would
// leave it. forceMode makes Begin choose a mode; pid and alive stand for
// os.Getpid and a liveness check, so that a test can declare its own stages
// dead.
var (
	hook      func(step string) bool
	forceMode mode
	pid       = os.Getpid
	alive     = processAlive
)

// ErrKilled is returned by Commit when a test hook simulated a kill.
var ErrKilled = errors.New("killed by test hook")

// Stage is a directory being built to replace Target as a whole.
type Stage struct {
	target string // absolute path of the directory it replaces
	dir    string // where the new set is built
	mode   mode
	made   []string // parent directories Begin created, outermost first
	last   string   // the entry an in-place commit moves last
	done   bool     // committed, aborted or killed: nothing left to do
}

// stageRe matches the stages and aside directories of any target in a
// directory: .NAME.stage-PID-RANDOM and .NAME.old-PID-RANDOM.
var stageRe = regexp.MustCompile(`^\.(.+)\.(stage|old)-([0-9]+)-[0-9a-z]+$`)

// innerStageRe matches an in-place stage inside its target.
var innerStageRe = regexp.MustCompile(`^\.stage-([0-9]+)-[0-9a-z]+$`)

// Begin cleans what killed writers left beside and inside target (Recover)
// and creates an empty stage for it, creating target's missing parents.
// The caller writes the new set into Dir, then calls Commit; Abort (safe to
// defer) removes the stage and the parents Begin created.
func Begin(target string) (*Stage, error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return nil, fmt.Errorf("output directory %q: %w", target, err)
	}
	s := &Stage{target: abs, last: ManifestName}
	fi, err := os.Stat(abs)
	switch {
	case err == nil && !fi.IsDir():
		return nil, fmt.Errorf("output directory %q is not a directory", target)
	case err == nil:
		if p, err := filepath.EvalSymlinks(abs); err == nil {
			s.target = p
		}
		Recover(s.target)
		s.mode = modeExchange
		if inPlace(s.target) {
			s.mode = modeInPlace
		}
	case errors.Is(err, fs.ErrNotExist):
		if err := s.makeParents(target); err != nil {
			return nil, err
		}
		Recover(s.target)
		s.mode = modeNew
	default:
		return nil, fmt.Errorf("output directory %q: %w", target, Unwrap(err))
	}
	if forceMode != 0 && (s.mode != modeNew || forceMode == modeInPlace) {
		s.mode = forceMode
	}
	if s.mode == modeInPlace && err != nil {
		// in place needs the target: make it (an empty directory is an
		// empty set).
		if err := os.Mkdir(s.target, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			s.Abort()
			return nil, fmt.Errorf("create output directory %q: %w", target, Unwrap(err))
		}
	}
	parent, name := filepath.Split(s.target)
	for range 100 {
		var p string
		if s.mode == modeInPlace {
			p = filepath.Join(s.target, ".stage-"+suffix())
		} else {
			p = filepath.Join(parent, "."+name+".stage-"+suffix())
		}
		err := os.Mkdir(p, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil && s.mode == modeExchange && (errors.Is(err, fs.ErrPermission) || isReadOnly(err)) {
			s.mode = modeInPlace
			continue
		}
		if err != nil {
			s.Abort()
			return nil, fmt.Errorf("create output directory %q: %w", target, Unwrap(err))
		}
		s.dir = p
		live.Store(p, true)
		return s, nil
	}
	s.Abort()
	return nil, fmt.Errorf("create output directory %q: no free stage name", target)
}

// ManifestName is the file an in-place commit moves last by default:
// schemas.ManifestFile.
const ManifestName = "manifest.json"

func suffix() string {
	return strconv.Itoa(pid()) + "-" + strconv.FormatUint(rand.Uint64(), 36)
}

// makeParents creates the missing parents of target, noting them for Abort.
func (s *Stage) makeParents(target string) error {
	var missing []string
	for p := filepath.Dir(s.target); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("output directory %q: %q is not a directory", target, p)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("output directory %q: %w", target, Unwrap(err))
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			s.Abort()
			return fmt.Errorf("create output directory %q: %w", target, Unwrap(err))
		}
		s.made = append(s.made, missing[i])
	}
	return nil
}

// Dir is the stage: where the new set is written.
func (s *Stage) Dir() string { return s.dir }

// Target is the absolute path of the directory the stage replaces.
func (s *Stage) Target() string { return s.target }

// Mode names how Commit swaps the stage in: new, exchange, aside or in-place.
func (s *Stage) Mode() string { return s.mode.String() }

// SetLast names the entry an in-place commit moves last (default
// manifest.json): the one that makes the new set valid.
func (s *Stage) SetLast(name string) { s.last = name }

// Keep carries the target's entries over into the stage, as hard links
// (copies where the file system has none), except tpsreport's work files
// (IsWorkFile) and those drop returns true for: a hidden entry of someone
// else's (.git, .env) is kept too. Files are never rewritten in place, only
// replaced by rename, so a link is as good as a copy.
func (s *Stage) Keep(drop func(name string) bool) error {
	entries, err := os.ReadDir(s.target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %q: %w", s.target, Unwrap(err))
	}
	for _, e := range entries {
		if IsWorkFile(e.Name()) || (drop != nil && drop(e.Name())) {
			continue
		}
		if err := linkTree(filepath.Join(s.target, e.Name()), filepath.Join(s.dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func linkTree(from, to string) error {
	fi, err := os.Lstat(from)
	if err != nil {
		return fmt.Errorf("keep %q: %w", from, Unwrap(err))
	}
	switch {
	case fi.IsDir():
		if err := os.Mkdir(to, fi.Mode().Perm()); err != nil {
			return fmt.Errorf("keep %q: %w", from, Unwrap(err))
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			return fmt.Errorf("keep %q: %w", from, Unwrap(err))
		}
		for _, e := range entries {
			if err := linkTree(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return err
			}
		}
		return nil
	case fi.Mode()&fs.ModeSymlink != 0:
		dst, err := os.Readlink(from)
		if err == nil {
			err = os.Symlink(dst, to)
		}
		if err != nil {
			return fmt.Errorf("keep %q: %w", from, Unwrap(err))
		}
		return nil
	}
	if os.Link(from, to) == nil {
		return nil
	}
	return copyFile(from, to, fi.Mode().Perm())
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("keep %q: %w", from, Unwrap(err))
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("keep %q: %w", from, Unwrap(err))
	}
	_, err = io.Copy(out, in)
	if serr := out.Sync(); err == nil {
		err = serr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("keep %q: %w", from, Unwrap(err))
	}
	return nil
}

// step runs the test hook; true means the process "dies" here.
func (s *Stage) step(name string) bool {
	if hook != nil && hook(name) {
		s.finish()
		return true
	}
	return false
}

// live holds the stages of this process not yet committed or aborted:
// Recover leaves them alone whatever alive says (a test declares this
// process's killed stages dead; its running ones are not).
var live sync.Map

// finish marks the stage done.
func (s *Stage) finish() {
	s.done = true
	live.Delete(s.dir)
}

// Commit swaps the stage in as the target. After it returns nil the target
// is the new set; after an error it is still the old one, except in place,
// where a failure part-way leaves a set that Verify refuses.
func (s *Stage) Commit() error {
	if s.done {
		return errors.New("commit: stage already committed or aborted")
	}
	if s.step("commit") {
		return ErrKilled
	}
	m := s.mode
	if m == modeExchange {
		err := exchange(s.dir, s.target)
		if errors.Is(err, errNoExchange) {
			m = modeAside
		} else if err != nil {
			return fmt.Errorf("replace %q: %w", s.target, Unwrap(err))
		} else {
			// The stage's name now holds the old set.
			if s.step("exchanged") {
				return ErrKilled
			}
			s.finish()
			_ = os.RemoveAll(s.dir)
			s.made = nil
			syncDir(filepath.Dir(s.target))
			return nil
		}
	}
	switch m {
	case modeNew:
		if err := os.Rename(s.dir, s.target); err != nil {
			return fmt.Errorf("create %q: %w", s.target, Unwrap(err))
		}
	case modeAside:
		parent, name := filepath.Split(s.target)
		old := filepath.Join(parent, "."+name+".old-"+suffix())
		if err := os.Rename(s.target, old); err != nil {
			return fmt.Errorf("replace %q: %w", s.target, Unwrap(err))
		}
		if s.step("aside") {
			return ErrKilled
		}
		if err := os.Rename(s.dir, s.target); err != nil {
			_ = os.Rename(old, s.target)
			return fmt.Errorf("replace %q: %w", s.target, Unwrap(err))
		}
		if s.step("renamed") {
			return ErrKilled
		}
		_ = os.RemoveAll(old)
	case modeInPlace:
		if err := s.moveEntries(); err != nil {
			return err
		}
		_ = os.RemoveAll(s.dir)
	}
	s.finish()
	s.made = nil
	syncDir(filepath.Dir(s.target))
	return nil
}

// moveEntries is the in-place commit: remove what the new set does not
// have, move every entry of the stage over the target's, the last one last.
func (s *Stage) moveEntries() error {
	staged, err := visible(s.dir)
	if err != nil {
		return err
	}
	current, err := visible(s.target)
	if err != nil {
		return err
	}
	hasLast := slices.Contains(staged, s.last)
	if slices.Contains(current, s.last) && !hasLast {
		// The old set's last entry goes first: what remains is no
		// longer a valid set.
		if err := os.RemoveAll(filepath.Join(s.target, s.last)); err != nil {
			return fmt.Errorf("replace %q: %w", s.target, Unwrap(err))
		}
	}
	for _, name := range current {
		if name == s.last || slices.Contains(staged, name) {
			continue
		}
		if s.step("remove " + name) {
			return ErrKilled
		}
		if err := os.RemoveAll(filepath.Join(s.target, name)); err != nil {
			return fmt.Errorf("replace %q: %w", s.target, Unwrap(err))
		}
	}
	staged = slices.DeleteFunc(staged, func(n string) bool { return n == s.last })
	if hasLast {
		staged = append(staged, s.last)
	}
	for _, name := range staged {
		if s.step("move " + name) {
			return ErrKilled
		}
		from, to := filepath.Join(s.dir, name), filepath.Join(s.target, name)
		if fi, err := os.Lstat(to); err == nil && fi.IsDir() {
			if err := os.RemoveAll(to); err != nil {
				return fmt.Errorf("replace %q: %w", to, Unwrap(err))
			}
		}
		if err := os.Rename(from, to); err != nil {
			return fmt.Errorf("replace %q: %w", to, Unwrap(err))
		}
	}
	if s.step("moved") {
		return ErrKilled
	}
	return nil
}

// Abort removes the stage and the parents Begin created (when empty). It
// does nothing after Commit.
func (s *Stage) Abort() {
	if s.done {
		return
	}
	s.finish()
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
	if s.mode == modeInPlace {
		_ = os.Remove(s.target) // made by Begin when missing; only when empty
	}
	for i := len(s.made) - 1; i >= 0; i-- {
		_ = os.Remove(s.made[i])
	}
	s.made = nil
}

// visible lists the entries of dir that are not hidden, sorted.
func visible(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", dir, Unwrap(err))
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// IsWorkFile reports whether name, an entry of an output directory, is one
// tpsreport itself makes there while it works: its lock (when the directory
// is a mount point), an in-place stage, analyze's spill directories and
// temporary files. Recover removes those of dead processes.
func IsWorkFile(name string) bool {
	return name == insideLock || innerStageRe.MatchString(name) ||
		strings.HasPrefix(name, ".") && (strings.HasPrefix(name, ".analyze-") || strings.Contains(name, ".tmp-") ||
			strings.HasSuffix(name, ".tmp") || strings.Contains(name, ".old-"))
}

// Visible lists the entries of dir that are not hidden, sorted; none when
// dir does not exist.
func Visible(dir string) ([]string, error) {
	names, err := visible(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return names, err
}

// Recover cleans what killed writers of target left: beside it, the
// stages of dead processes (of any target: they are named as only this
// package names them), the old sets they moved aside (put back when the
// target is missing, removed otherwise) and the legacy ".NAME.tmp-*"
// stages; inside it, in-place stages of dead processes, analyze's spill
// directories (.analyze-*) and temporary files (.*.tmp-*, .*.tmp). Every
// writer calls it (through Begin) while holding the target's lock.
func Recover(target string) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return
	}
	parent, name := filepath.Split(abs)
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			n := e.Name()
			if strings.HasPrefix(n, "."+name+".tmp-") {
				_ = os.RemoveAll(filepath.Join(parent, n))
				continue
			}
			m := stageRe.FindStringSubmatch(n)
			if m == nil {
				continue
			}
			left := filepath.Join(parent, n)
			p, err := strconv.Atoi(m[3])
			if _, mine := live.Load(left); err != nil || mine || alive(p) {
				continue
			}
			if m[2] == "old" {
				owner := filepath.Join(parent, m[1])
				if _, err := os.Lstat(owner); errors.Is(err, fs.ErrNotExist) && os.Rename(left, owner) == nil {
					continue
				}
			}
			_ = os.RemoveAll(left)
		}
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, ".") {
			continue
		}
		if m := innerStageRe.FindStringSubmatch(n); m != nil {
			left := filepath.Join(abs, n)
			_, mine := live.Load(left)
			if p, err := strconv.Atoi(m[1]); err == nil && !mine && !alive(p) {
				_ = os.RemoveAll(left)
			}
			continue
		}
		if strings.HasPrefix(n, ".analyze-") || strings.Contains(n, ".tmp-") || strings.HasSuffix(n, ".tmp") || strings.Contains(n, ".old-") {
			_ = os.RemoveAll(filepath.Join(abs, n))
		}
	}
}

// sweep removes what killed writers of target alone left: its stages and
// aside sets beside it, and the in-place stages inside it, of processes
// that no longer run. A reader calls it (LockDir) while it holds target's
// lock, so that a dataset nobody writes again does not keep a killed
// writer's copy forever; unlike Recover it leaves other targets' leftovers,
// and the temporary files inside target, to their writers.
func sweep(target string) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return
	}
	dead := func(path, pidText string) bool {
		p, err := strconv.Atoi(pidText)
		_, mine := live.Load(path)
		return err == nil && !mine && !alive(p)
	}
	parent, name := filepath.Split(abs)
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			m := stageRe.FindStringSubmatch(e.Name())
			if m == nil || m[1] != name {
				continue
			}
			if left := filepath.Join(parent, e.Name()); dead(left, m[3]) {
				_ = os.RemoveAll(left)
			}
		}
	}
	if entries, err := os.ReadDir(abs); err == nil {
		for _, e := range entries {
			if m := innerStageRe.FindStringSubmatch(e.Name()); m != nil {
				if left := filepath.Join(abs, e.Name()); dead(left, m[1]) {
					_ = os.RemoveAll(left)
				}
			}
		}
	}
}

func syncDir(dir string) {
	// Make the renames durable; not every file system can sync a directory.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// Unwrap drops the *fs.PathError and *os.LinkError wrappers, whose text
// repeats the path our messages already quote. ingest's messages use it too.
func Unwrap(err error) error {
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

// errNoExchange says the system or file system has no atomic exchange.
var errNoExchange = errors.New("atomic exchange not supported")
