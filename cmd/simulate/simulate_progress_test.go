package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
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
