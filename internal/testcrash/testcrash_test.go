package testcrash

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatch runs this test binary again as a process that Watches and
// then receives a SIGSEGV it did not cause (as a fault on a foreign thread
// reaches Go): it says so, lists the goroutines, among them the one that
// waits here, and exits 2, where without Watch it would die of the signal
// without a word.
func TestWatch(t *testing.T) {
	if os.Getenv("TESTCRASH_CHILD") == "1" {
		Watch(os.Stderr)
		_ = syscall.Kill(os.Getpid(), syscall.SIGSEGV)
		time.Sleep(10 * time.Second)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatch$")
	cmd.Env = append(os.Environ(), "TESTCRASH_CHILD=1")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("want exit status 2, got %v:\n%s", err, out)
	}
	for _, want := range []string{"testcrash: segmentation fault on a thread that is not Go's", "testcrash.TestWatch"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
