package dataset

// SetTestHooks is for the tests of the packages that commit through this
// one. step is called at every step of every commit with the step's name
// ("commit", "exchanged", "aside", "renamed", "move NAME", ...); returning
// true simulates a SIGKILL there: Commit returns ErrKilled and leaves
// everything as it is. alive, when set, replaces the check whether the
// process that left a stage still runs, so a test can declare its own
// stages a dead process's. The returned function restores the defaults.
func SetTestHooks(step func(string) bool, isAlive func(pid int) bool) (restore func()) {
	hook = step
	if isAlive != nil {
		alive = isAlive
	}
	return func() { hook, alive = nil, processAlive }
}
