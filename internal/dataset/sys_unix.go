//go:build unix

package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// inPlace reports whether the directory target cannot be swapped by renaming
// it: it is a mount point (a bind mount included), the working directory,
// or its parent is not writable.
func inPlace(target string) bool {
	parent := filepath.Dir(target)
	if parent == target {
		return true
	}
	var st, pst unix.Stat_t
	if unix.Stat(target, &st) == nil && unix.Stat(parent, &pst) == nil && st.Dev != pst.Dev {
		return true
	}
	if mountRoot(target) {
		return true // a bind mount: the same device as its parent
	}
	if wd, err := os.Getwd(); err == nil {
		if p, err := filepath.EvalSymlinks(wd); err == nil && p == target {
			return true
		}
	}
	return unix.Access(parent, unix.W_OK) != nil
}

func isReadOnly(err error) bool { return errors.Is(err, syscall.EROFS) }

// processAlive reports whether process pid exists (EPERM: it does, as
// another user's).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return (err == nil || errors.Is(err, unix.EPERM)) && !zombie(pid)
}
