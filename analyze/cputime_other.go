//go:build !unix

package analyze

import "time"

// cpuTime is 0 where the process's CPU time is not read (see cputime_unix.go).
func cpuTime() time.Duration { return 0 }
