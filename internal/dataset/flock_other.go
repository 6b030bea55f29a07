//go:build !unix

package dataset

import "os"

// noFollow is not available here: LockDir's Lstat is the check.
const noFollow = 0

// flock is not available here: every lock is granted.
func flock(*os.File, bool) (bool, error) { return false, nil }
