package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
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
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w, last: -1} }

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
	fmt.Fprintf(b.w, "\r[%s%s] %5.1f%%  %d/%d episodes", strings.Repeat("=", full), strings.Repeat(" ", barWidth-full),
		float64(permille)/10, done, total)
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
