package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProgressBarRedrawsOnlyOnChange(t *testing.T) {
	var b bytes.Buffer
	bar := newProgressBar(&b)
	bar.update(1, 4_000)
	bar.update(2, 4_000) // still 0.0%: not redrawn
	bar.update(2_000, 4_000)
	bar.done()
	out := b.String()
	if n := strings.Count(out, "\r["); n != 2 {
		t.Errorf("%d redraws, want 2:\n%q", n, out)
	}
	if !strings.Contains(out, " 50.0%  2000/4000 episodes") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("output %q", out)
	}
	var none *progressBar
	none.done() // a nil bar does nothing
}

func TestIsTerminal(t *testing.T) {
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a file is not a terminal")
	}
}

// TestProgressBarEstimatesTheTimeLeft: elapsed time and the time left at
// the rate so far, read from the bar's clock.
func TestProgressBarEstimatesTheTimeLeft(t *testing.T) {
	var b bytes.Buffer
	bar := newProgressBar(&b)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	bar.start, bar.now = t0, func() time.Time { return now }
	now = t0.Add(30 * time.Second)
	bar.update(1_000, 4_000)
	require.Contains(t, b.String(), "25.0%  1000/4000 episodes  30s elapsed, ~1m30s left")
	now = t0.Add(2*time.Hour + 3*time.Minute)
	bar.update(3_999, 4_000)
	require.Contains(t, b.String(), "2h03m elapsed, ~2s left")
	assert.Equal(t, "59s", clock(59*time.Second))
}
