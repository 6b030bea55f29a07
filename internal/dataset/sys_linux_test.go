package dataset

import (
	"os/exec"
	"testing"
	"time"
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
