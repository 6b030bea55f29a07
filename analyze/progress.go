package analyze

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress shows on a terminal which statement analyze is running and for
// how long it has run, rewriting one line in place, as ingest's bar does. A
// large run takes tens of seconds; without it the terminal stays silent.
type progress struct {
	w     io.Writer
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup

	mu   sync.Mutex
	step string
	n    int // statements started
}

// progressEvery is how often the line is redrawn.
const progressEvery = 250 * time.Millisecond

// startProgress starts redrawing the line on w; nil w gives a nil progress,
// whose methods do nothing.
func startProgress(w io.Writer) *progress {
	if w == nil {
		return nil
	}
	p := &progress{w: w, start: time.Now(), done: make(chan struct{}), step: "starting"}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				fmt.Fprint(p.w, "\r\x1b[K")
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

func (p *progress) draw() {
	p.mu.Lock()
	step, n := p.step, p.n
	p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\x1b[Kanalyze  %5.1fs  statement %d: %s", time.Since(p.start).Seconds(), n, step)
}

// set names the statement now running.
func (p *progress) set(step string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.step = step
	p.n++
	p.mu.Unlock()
}

// stop clears the line; the caller prints the outcome.
func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.wg.Wait()
}

// stage tells the progress line which statement the main connection starts;
// the side connection's statements run beside and are not shown.
func (a *analysis) stage(name string) {
	a.progress.set(name)
}
