//go:build !unix

package dataset

import "os"

// flock is not available here: every lock is granted.
func flock(*os.File, bool) (bool, error) { return false, nil }
