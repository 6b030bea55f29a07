//go:build unix

package dataset

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// noFollow makes an open fail on a symbolic link rather than follow it.
const noFollow = unix.O_NOFOLLOW

// flock locks f without waiting; busy says another holder has it.
func flock(f *os.File, exclusive bool) (busy bool, err error) {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err = unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
