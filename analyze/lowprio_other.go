//go:build !linux

package analyze

// goIdle runs f on a goroutine of its own; elsewhere than on Linux at the
// process's priority (see lowprio_linux.go).
func goIdle(f func(error)) {
	go f(nil)
}
