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
	assert.Equal(t, 2, strings.Count(out, "\r["), "redraws in %q", out)
	assert.Contains(t, out, " 50.0%  2000/4000 episodes")
	assert.True(t, strings.HasSuffix(out, "\r\033[K"), "output %q does not end by clearing the line", out)
	var none *progressBar
	none.done() // a nil bar does nothing
}

func TestIsTerminal(t *testing.T) {
	assert.False(t, isTerminal(&bytes.Buffer{}), "a buffer is not a terminal")
	f, err := os.CreateTemp(t.TempDir(), "x")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a file is not a terminal")
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
