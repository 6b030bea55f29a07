package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Lock is a held lock on a directory (LockDir).
type Lock struct {
	f         *os.File
	path      string
	exclusive bool
	inner     *Lock // the lock inside the directory, when it is beside it
}

// BusyError says another process holds the lock on Dir.
type BusyError struct {
	Dir     string
	PID     int    // 0 when the holder did not say
	Command string // its command line, as it wrote it
}

func (e *BusyError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("%s is in use by another tpsreport process", e.Dir)
	}
	return fmt.Sprintf("%s is in use by PID %d (%s)", e.Dir, e.PID, e.Command)
}

// LockPath is the lock file of dir: .NAME.lock beside it, or .tpsreport.lock
// inside it when its parent is not writable (a mount point, a read-only
// parent), where a stage could not go either.
func LockPath(dir string) (string, error) {
	abs, err := resolve(dir)
	if err != nil {
		return "", err
	}
	parent, name := filepath.Split(abs)
	if _, err := os.Stat(abs); err == nil && inPlace(abs) && !isWD(abs) {
		return filepath.Join(abs, insideLock), nil
	}
	if name == "" {
		return filepath.Join(abs, insideLock), nil
	}
	return filepath.Join(parent, "."+name+".lock"), nil
}

// insideLock is the lock file a directory holds itself.
const insideLock = ".tpsreport.lock"

// resolve is dir's absolute path, its links followed where it exists.
func resolve(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if p, err := filepath.EvalSymlinks(abs); err == nil {
		abs = p
	}
	return abs, nil
}

func isWD(abs string) bool {
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	p, err := filepath.EvalSymlinks(wd)
	return err == nil && p == abs
}

// LockDir takes the lock of dir, waiting only for a holder that is
// releasing it (lockPatience): exclusive for a writer
// (ingest, analyze, run on its root), shared for a reader (report, compare).
// A lock held by another process is a *BusyError naming it: who holds the
// lock writes its PID and command line into the lock file. dir need not
// exist (a writer's missing parents are created; a reader of a missing
// directory gets no lock, and its own error). The lock lasts until Unlock or
// the process ends (the kernel drops it then, even after SIGKILL).
//
// The lock of a directory that exists is also taken inside it
// (.tpsreport.lock): a container that sees the directory as its bind mount
// locks there alone (LockPath), and must exclude the host, which sees an
// ordinary directory and locks beside it.
func LockDir(dir string, exclusive bool, command string) (*Lock, error) {
	if _, err := os.Stat(dir); err != nil && !exclusive {
		// Nothing to read: the reader says so better than a lock would.
		return &Lock{}, nil
	}
	path, err := LockPath(dir)
	if err != nil {
		return nil, fmt.Errorf("lock %q: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, fmt.Errorf("lock %q: %w", dir, Unwrap(err))
	}
	l, err := lockAt(dir, path, exclusive, command)
	if err != nil || l.f == nil {
		return l, err
	}
	abs, err := resolve(dir)
	if err != nil {
		l.Unlock()
		return nil, fmt.Errorf("lock %q: %w", dir, err)
	}
	if inside := filepath.Join(abs, insideLock); path != inside {
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			in, err := lockAt(dir, inside, exclusive, command)
			switch {
			case err == nil:
				l.inner = in
			case errors.Is(err, fs.ErrPermission) || isReadOnly(err):
				// A directory this process cannot write: nobody it
				// could disturb can lock inside it either.
			default:
				l.Unlock()
				return nil, err
			}
		}
	}
	if !exclusive {
		// A writer cleans up before it writes (Begin); a reader cleans
		// what killed writers left of the directory it reads.
		sweep(dir)
	}
	return l, nil
}

// lockAt takes the lock file at path for dir. A released lock's file is
// removed (Unlock), so the file opened here may be unlinked by its last
// holder before it is locked: the lock then holds a file nobody else can
// find. Such a lock is dropped and taken again on the file at path. A
// holder that is only releasing its lock (a reader briefly takes it
// exclusively to remove the file) is waited out for up to lockPatience.
func lockAt(dir, path string, exclusive bool, command string) (*Lock, error) {
	deadline := time.Now().Add(lockPatience)
	for {
		f, err := openLock(dir, path, exclusive)
		if err != nil {
			return nil, err
		}
		if f == nil {
			return &Lock{}, nil
		}
		if lockHook != nil {
			lockHook(path)
		}
		busy, err := flock(f, exclusive)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %q: %w", dir, err)
		}
		if busy {
			f.Close()
			if time.Now().Before(deadline) {
				time.Sleep(lockPatience / 10)
				continue
			}
			e := holder(path)
			e.Dir = dir
			return nil, e
		}
		if !samePath(f, path) {
			f.Close()
			continue
		}
		line := strconv.Itoa(os.Getpid()) + " " + clean(command) + "\n"
		if exclusive {
			_ = f.Truncate(0)
		}
		_, _ = f.WriteString(line)
		return &Lock{f: f, path: path, exclusive: exclusive}, nil
	}
}

// lockPatience is how long LockDir waits out a busy lock before it says
// who holds it: long enough for a holder to release, short for a user.
const lockPatience = 100 * time.Millisecond

// lockHook, when set by a test, is called between opening a lock file and
// locking it: where another process may release and remove it.
var lockHook func(path string)

// openLock opens the lock file at path, creating it. A nil file and nil
// error mean no lock is needed: a reader of a directory it cannot write,
// where nobody it could disturb can write either.
func openLock(dir, path string, exclusive bool) (*os.File, error) {
	// A lock file is written (a writer truncates it): one planted as a
	// link to another file, or as anything but a regular file, is refused,
	// never written through. O_NOFOLLOW closes the gap between the check
	// and the open.
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("lock %q: %s is not a regular file (%s): tpsreport writes nothing through it; remove it", dir, path, kind(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|noFollow, 0o666)
	if err == nil {
		if fi, serr := f.Stat(); serr == nil && !fi.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("lock %q: %s is not a regular file (%s): tpsreport writes nothing through it; remove it", dir, path, kind(fi.Mode()))
		}
		return f, nil
	}
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("lock %q: %s is not a regular file (a symbolic link): tpsreport writes nothing through it; remove it", dir, path)
	}
	if (errors.Is(err, fs.ErrPermission) || isReadOnly(err)) && !exclusive {
		return nil, nil
	}
	return nil, fmt.Errorf("lock %q: %w", dir, Unwrap(err))
}

// samePath says whether f is still the file at path.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// kind names what a file mode says a path is, for an error.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// Unlock releases the lock and, when no one else holds it, removes its
// file, so that a directory's lock file exists only while it is in use. A
// reader takes the lock exclusively for that, without waiting: when another
// reader holds it too, the file stays for the last one. Whoever opened the
// file before it was removed finds it gone once locked, and takes the lock
// again on a new file (LockDir). Unlocking a nil or released Lock does
// nothing.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	l.inner.Unlock()
	l.inner = nil
	last := l.exclusive
	if !last {
		busy, err := flock(l.f, true)
		last = err == nil && !busy
	}
	if last && samePath(l.f, l.path) {
		_ = os.Remove(l.path)
	}
	_ = l.f.Close() // closing the last descriptor releases a flock
	l.f = nil
}

// holder reads who holds the lock file: the last line of a live process.
func holder(path string) *BusyError {
	e := &BusyError{}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return e
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pidText, cmd, _ := strings.Cut(sc.Text(), " ")
		p, err := strconv.Atoi(pidText)
		if err != nil || !alive(p) {
			continue
		}
		e.PID, e.Command = p, cmd
	}
	return e
}

// clean makes a command line one printable line of at most 200 bytes.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
