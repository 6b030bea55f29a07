//go:build unix

package analyze

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used so far, for
// --debug's per-statement log; 0 where it cannot be read.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
