package analyze

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
)

// niceOf is thread tid's nice; getpriority(2)'s raw value is 20 - nice.
func niceOf(t *testing.T, tid int) int {
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

// TestGoIdle: f runs at nice 19 on a thread of its own, which ends with
// f's goroutine, and the process's main thread keeps its priority.
func TestGoIdle(t *testing.T) {
	pid := syscall.Getpid()
	before := niceOf(t, pid)
	const n = 32
	tids := make(chan [2]int, n)
	for range n {
		goIdle(func(err error) {
			if err != nil {
				t.Error(err)
			}
			tid := syscall.Gettid()
			tids <- [2]int{tid, niceOf(t, tid)}
		})
	}
	var seen []int
	for range n {
		r := <-tids
		if r[0] == pid || r[1] != 19 {
			t.Errorf("f ran on thread %d (the main thread is %d) at nice %d, want another at 19", r[0], pid, r[1])
		}
		seen = append(seen, r[0])
	}
	if p := niceOf(t, pid); p != before {
		t.Errorf("the main thread's nice is %d, was %d", p, before)
	}
	for _, tid := range seen {
		task := fmt.Sprintf("/proc/self/task/%d", tid)
		for i := 0; ; i++ {
			if _, err := os.Stat(task); os.IsNotExist(err) {
				break
			}
			if i == 1000 {
				t.Fatalf("thread %d still there a second after its goroutine ended", tid)
			}
			syscall.Nanosleep(&syscall.Timespec{Nsec: 1e6}, nil)
		}
	}
}

// TestGoIdleOffKept: when the goroutine starts on a thread to keep (as the
// main thread is), f runs on another, and the kept thread's priority stays.
func TestGoIdleOffKept(t *testing.T) {
	var mu sync.Mutex
	kept := 0
	keep := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if kept == 0 {
			kept = syscall.Gettid()
			return true
		}
		return false
	}
	got := make(chan [2]int)
	goIdleOff(func(err error) {
		if err != nil {
			t.Error(err)
		}
		tid := syscall.Gettid()
		got <- [2]int{tid, niceOf(t, tid)}
	}, keep)
	r := <-got
	mu.Lock()
	k := kept
	mu.Unlock()
	if k == 0 || r[0] == k || r[1] != 19 {
		t.Errorf("kept thread %d; f ran on %d at nice %d, want another at 19", k, r[0], r[1])
	}
	if p := niceOf(t, k); p == 19 {
		t.Errorf("the kept thread %d runs at nice 19", k)
	}
}
