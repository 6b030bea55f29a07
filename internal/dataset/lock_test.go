package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLockDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "r1") // need not exist
	ex, err := LockDir(dir, true, "tpsreport ingest --out runs/r1 \x1b[2Jx")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { // as the writer would
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s is in use by PID %d (tpsreport ingest --out runs/r1 ?[2Jx)", dir, os.Getpid())
	for _, exclusive := range []bool{true, false} {
		_, err := LockDir(dir, exclusive, "tpsreport report")
		var busy *BusyError
		if !errors.As(err, &busy) || err.Error() != want {
			t.Errorf("exclusive=%v while held: %v, want %q", exclusive, err, want)
		}
	}
	ex.Unlock()
	r1, err := LockDir(dir, false, "tpsreport report one")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := LockDir(dir, false, "tpsreport report two")
	if err != nil {
		t.Fatalf("two readers: %v", err)
	}
	_, err = LockDir(dir, true, "tpsreport analyze")
	if want := fmt.Sprintf("%s is in use by PID %d (tpsreport report two)", dir, os.Getpid()); err == nil || err.Error() != want {
		t.Errorf("writer while read: %v, want %q", err, want)
	}
	r1.Unlock()
	r2.Unlock()
	w, err := LockDir(dir, true, "tpsreport analyze")
	if err != nil {
		t.Fatalf("after readers left: %v", err)
	}
	w.Unlock()
	// A reader of a directory that does not exist takes no lock (and
	// creates nothing): it fails on its own.
	missing := filepath.Join(filepath.Dir(dir), "nope", "r2")
	if l, err := LockDir(missing, false, "tpsreport report"); err != nil || l.f != nil {
		t.Errorf("reader of a missing directory: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("reader created %s", filepath.Dir(missing))
	}
	if p, _ := LockPath(dir); filepath.Base(p) != ".r1.lock" {
		t.Errorf("lock file %s, want .r1.lock beside the directory", p)
	}
}

// TestLockFollowsNoLink: a lock file planted as a link to another file, or
// as a named pipe, is refused by writers and readers alike, and the file it
// points to is left as it was (hostile-input review N2).
func TestLockFollowsNoLink(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim.txt")
	if err := os.WriteFile(victim, []byte("IMPORTANT CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "runs", "SYM")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(root, "runs", ".SYM.lock")
	if err := os.Symlink(victim, lock); err != nil {
		t.Fatal(err)
	}
	for _, exclusive := range []bool{true, false} {
		l, err := LockDir(dir, exclusive, "tpsreport ingest")
		if want := fmt.Sprintf("lock %q: %s is not a regular file (a symbolic link): tpsreport writes nothing through it; remove it", dir, lock); err == nil || err.Error() != want {
			t.Errorf("exclusive=%v: %v, want %q", exclusive, err, want)
			l.Unlock()
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "IMPORTANT CONTENT\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	// A dangling link: nothing is created where it points.
	os.Remove(lock)
	if err := os.Symlink(filepath.Join(root, "created"), lock); err != nil {
		t.Fatal(err)
	}
	if _, err := LockDir(dir, true, "tpsreport ingest"); err == nil {
		t.Error("a dangling link: no error")
	}
	if _, err := os.Stat(filepath.Join(root, "created")); err == nil {
		t.Error("a dangling link's target was created")
	}
}

// TestLockFileRemoved: a lock's file exists only while the lock is held
// (hostile-input review N11: every dataset kept a .NAME.lock beside it).
// The last of two readers removes it; a writer removes it at once.
func TestLockFileRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path, _ := LockPath(dir)
	exists := func() bool { _, err := os.Lstat(path); return err == nil }
	w, err := LockDir(dir, true, "tpsreport analyze")
	if err != nil {
		t.Fatal(err)
	}
	if !exists() {
		t.Fatal("no lock file while held")
	}
	w.Unlock()
	if exists() {
		t.Error("a writer's lock file stays after Unlock")
	}
	r1, err := LockDir(dir, false, "tpsreport report one")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := LockDir(dir, false, "tpsreport report two")
	if err != nil {
		t.Fatal(err)
	}
	r1.Unlock()
	if !exists() {
		t.Error("the first reader removed the lock file the second still holds")
	}
	if _, err := LockDir(dir, true, "tpsreport analyze"); err == nil {
		t.Error("a writer took the lock while a reader held it")
	}
	r2.Unlock()
	if exists() {
		t.Error("the last reader's lock file stays after Unlock")
	}
}

// TestLockRemovedBeforeLocked: a lock file removed by its last holder
// between another's open and lock is not locked as if it were the lock: the
// lock is taken again on the file at the path, which is then the locked one
// and excludes a second writer.
func TestLockRemovedBeforeLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	removed := 0
	lockHook = func(path string) {
		if removed == 0 {
			removed++
			if err := os.Remove(path); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { lockHook = nil }()
	l, err := LockDir(dir, true, "tpsreport analyze")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if removed != 1 {
		t.Fatalf("hook ran %d times", removed)
	}
	if !samePath(l.f, l.path) {
		t.Error("the lock holds a file that is no longer at its path")
	}
	lockHook = nil
	if _, err := LockDir(dir, true, "tpsreport ingest"); err == nil {
		t.Error("a second writer took the lock")
	}
}

// TestLockExcludesABindMountsOtherSide: a container sees its bind mount as
// a mount point and locks inside it alone (LockPath); the host sees an
// ordinary directory and locks beside it. Every lock of a directory that
// exists is therefore also taken inside it, so the two exclude each other
// (hostile-input review N5), and both files go with their holder.
func TestLockExcludesABindMountsOtherSide(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(dir, insideLock)
	host, err := LockDir(dir, true, "tpsreport ingest (host)")
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if _, err := lockAt(dir, inside, false, "tpsreport report (container)"); !errors.As(err, &busy) {
		t.Errorf("the container's view while the host writes: %v, want busy", err)
	}
	host.Unlock()
	container, err := lockAt(dir, inside, true, "tpsreport ingest (container)")
	if err != nil {
		t.Fatal(err)
	}
	for _, exclusive := range []bool{true, false} {
		if _, err := LockDir(dir, exclusive, "tpsreport (host)"); !errors.As(err, &busy) || !strings.Contains(err.Error(), "(container)") {
			t.Errorf("exclusive=%v on the host while the container writes: %v, want busy naming it", exclusive, err)
		}
	}
	container.Unlock()
	beside, _ := LockPath(dir)
	for _, p := range []string{inside, beside} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s stays after its holders left", p)
		}
	}
}

// TestInsideLockFollowsNoLink: a lock file planted inside a directory as a
// link is refused like one beside it (review N2), never written through.
func TestInsideLockFollowsNoLink(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim.txt")
	if err := os.WriteFile(victim, []byte("IMPORTANT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, insideLock)); err != nil {
		t.Fatal(err)
	}
	if l, err := LockDir(dir, true, "tpsreport ingest"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a link planted inside: %v, want it refused", err)
		l.Unlock()
	}
	if b, _ := os.ReadFile(victim); string(b) != "IMPORTANT\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	if p, _ := LockPath(dir); fileExists(p) {
		t.Errorf("the lock beside %s stays after the refusal", dir)
	}
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
