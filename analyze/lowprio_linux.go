package analyze

import (
	"runtime"
	"syscall"
)

// goIdle runs f on a goroutine and a thread of their own, the thread at the
// lowest CPU priority (nice 19), for work that should take only the cores
// the analysis leaves idle; f is given the error if the priority could not
// be set. The thread stays locked to the goroutine, so Go ends it with the
// goroutine rather than run others at that priority. On Linux a priority
// set for a thread id is that thread's alone, and a thread started from it
// would inherit it, but Go starts the threads that a locked one needs from
// a thread of its own.
func goIdle(f func(error)) {
	goIdleOff(f, func() bool { return syscall.Gettid() == syscall.Getpid() })
}

// goIdleOff is goIdle, off the threads for which keep is true: the
// process's main thread, which must keep its priority and cannot end.
func goIdleOff(f func(error), keep func() bool) {
	go func() {
		runtime.LockOSThread()
		if keep() {
			// While this goroutine holds the thread, the next runs on
			// another.
			done := make(chan struct{})
			goIdleOff(func(err error) {
				defer close(done)
				f(err)
			}, keep)
			<-done
			runtime.UnlockOSThread()
			return
		}
		f(syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19))
	}()
}
