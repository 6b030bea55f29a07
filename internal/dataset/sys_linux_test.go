package dataset

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEndedUnreapedProcessIsDead: a killed writer whose parent has not yet
// reaped it (a zombie, as `timeout -s KILL` leaves one for a moment) does not
// keep its stage alive.
func TestEndedUnreapedProcessIsDead(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	for i := 0; !zombie(pid); i++ {
		if i == 10000 {
			t.Fatalf("process %d never showed as ended", pid)
		}
		time.Sleep(time.Millisecond)
	}
	if processAlive(pid) {
		t.Errorf("processAlive(%d) of an ended, unreaped process = true, want false", pid)
	}
	if !processAlive(1) {
		t.Error("processAlive(1) = false, want true")
	}
}

// TestBeginOnABindMountIsInPlace: a bind mount of the same file system (a
// container's -v host:/out) has its parent's device, but nothing can be
// renamed over it: its stage goes inside it, and a set commits (review N5).
// Mounting needs root; elsewhere the test is skipped.
func TestBeginOnABindMountIsInPlace(t *testing.T) {
	root := t.TempDir()
	src, target := filepath.Join(root, "src"), filepath.Join(root, "out")
	for _, d := range []string{src, target} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mount(src, target, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v (needs root)", err)
	}
	t.Cleanup(func() { unix.Unmount(target, 0) })
	if !mountRoot(target) || mountRoot(src) {
		t.Errorf("mountRoot: the mount %v, its source %v; want true, false", mountRoot(target), mountRoot(src))
	}
	s, err := Begin(target)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode() != "in-place" || filepath.Dir(s.Dir()) != s.Target() {
		t.Errorf("mode %s, stage %s; want in-place, inside %s", s.Mode(), s.Dir(), target)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatalf("commit on a bind mount: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(src, "f")); err != nil || string(b) != "x" {
		t.Errorf("the mount's source holds %q, %v; want the committed file", b, err)
	}
}
