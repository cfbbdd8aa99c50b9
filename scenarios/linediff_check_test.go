package scenarios

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

// TestUnifiedDiff pins the unified form of a few small differences, as
// diff -u prints them.
func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one line changed in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"a line added at the end", "a\nb\n", "a\nb\nc\n",
			"--- old\n+++ new\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
		{"a line removed at the start", "a\nb\n", "b\n",
			"--- old\n+++ new\n@@ -1,2 +1 @@\n-a\n b\n"},
		{"into an empty text", "a\n", "",
			"--- old\n+++ new\n@@ -1 +0,0 @@\n-a\n"},
		{"from an empty text", "", "a\n",
			"--- old\n+++ new\n@@ -0,0 +1 @@\n+a\n"},
		{"a missing last newline", "a\nb\n", "a\nb",
			"--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n+b (no newline at end)\n"},
		{"two changes far apart make two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n",
			"--- old\n+++ new\n@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+y\n"},
		{"two changes close together share a hunk", "1\n2\n3\n4\n5\n", "x\n2\n3\n4\ny\n",
			"--- old\n+++ new\n@@ -1,5 +1,5 @@\n-1\n+x\n 2\n 3\n 4\n-5\n+y\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, unifiedDiff("old", "new", tc.from, tc.to))
		})
	}
}

// TestDiffLinesRebuildsBothTexts: the kept and removed lines of a diff
// are the first text, the kept and added lines the second, and it keeps
// as many lines as a longest common subsequence has.
func TestDiffLinesRebuildsBothTexts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.SampledFrom([]string{"a", "b", "c", "d"})
		a := rapid.SliceOfN(line, 0, 12).Draw(t, "a")
		b := rapid.SliceOfN(line, 0, 12).Draw(t, "b")
		var gotA, gotB []string
		kept := 0
		for _, op := range diffLines(a, b) {
			if op.mark != '+' {
				gotA = append(gotA, op.text)
			}
			if op.mark != '-' {
				gotB = append(gotB, op.text)
			}
			if op.mark == ' ' {
				kept++
			}
		}
		if strings.Join(gotA, "\n") != strings.Join(a, "\n") || len(gotA) != len(a) {
			t.Fatalf("first text rebuilt as %q, want %q", gotA, a)
		}
		if strings.Join(gotB, "\n") != strings.Join(b, "\n") || len(gotB) != len(b) {
			t.Fatalf("second text rebuilt as %q, want %q", gotB, b)
		}
		if want := lcsLength(a, b); kept != want {
			t.Fatalf("kept %d lines, a longest common subsequence has %d", kept, want)
		}
	})
}

// lcsLength is the length of a longest common subsequence, by plain
// recursion over prefixes (the inputs are small).
func lcsLength(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if a[0] == b[0] {
		return 1 + lcsLength(a[1:], b[1:])
	}
	return max(lcsLength(a[1:], b), lcsLength(a, b[1:]))
}
