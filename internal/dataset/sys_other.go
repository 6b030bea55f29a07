//go:build !linux

package dataset

// exchange is not available: Commit moves the old set aside instead.
func exchange(a, b string) error { return errNoExchange }

// mountRoot cannot tell here beyond a change of device (inPlace).
func mountRoot(string) bool { return false }
