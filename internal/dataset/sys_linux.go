package dataset

import (
	"bytes"
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b in one atomic step.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	return err
}

// zombie reports whether process pid has ended but was not yet reaped by
// its parent (state Z in /proc/PID/stat): killed, as far as its stage goes.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// mountRoot reports whether dir is the root of a mount, a bind mount of the
// same file system included (statx's STATX_ATTR_MOUNT_ROOT, Linux 5.8):
// a container's -v host:/out. Nothing can be renamed over such a directory
// (EBUSY), nor into it from outside it (EXDEV). False when the kernel does
// not say.
func mountRoot(dir string) bool {
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, dir, 0, unix.STATX_BASIC_STATS, &st) != nil {
		return false
	}
	return st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
}
