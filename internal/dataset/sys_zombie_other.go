//go:build unix && !linux

package dataset

// zombie cannot tell here: an ended process not yet reaped counts as alive.
func zombie(int) bool { return false }
