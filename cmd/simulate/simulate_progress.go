package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressBar draws the simulation's progress on one line of a
// terminal, redrawing only when the shown figure changes. Workers call
// update concurrently.
type progressBar struct {
	w    io.Writer
	mu   sync.Mutex
	last int // per mille shown
	// now reads the clock for the elapsed time and the estimate of the
	// time left: shown, never decided on.
	now   func() time.Time
	start time.Time
}

func newProgressBar(w io.Writer) *progressBar {
	return &progressBar{w: w, last: -1, now: time.Now, start: time.Now()}
}

const barWidth = 40

func (b *progressBar) update(done, total int) {
	permille := done * 1000 / total
	b.mu.Lock()
	defer b.mu.Unlock()
	if permille == b.last {
		return
	}
	b.last = permille
	full := permille * barWidth / 1000
	elapsed := b.now().Sub(b.start)
	left := "?"
	if done > 0 {
		left = "~" + clock(time.Duration(float64(elapsed)*float64(total-done)/float64(done)))
	}
	fmt.Fprintf(b.w, "\r[%s%s] %5.1f%%  %d/%d episodes  %s elapsed, %s left\033[K", strings.Repeat("=", full), strings.Repeat(" ", barWidth-full),
		float64(permille)/10, done, total, clock(elapsed), left)
}

// clock writes a duration as 42s, 3m07s or 1h02m.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

// done clears the bar; a nil bar does nothing.
func (b *progressBar) done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprint(b.w, "\r\033[K")
}
