package scenarios

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines a hunk of unifiedDiff shows
// around each change, as diff -u does.
const diffContext = 3

// unifiedDiff returns the difference between two texts, line by line, in
// the unified form (--- / +++ headers, @@ hunks, lines marked ' ', '-'
// or '+'), or "" when they are equal. It finds a longest common
// subsequence of the lines that differ after the common head and tail,
// which is quadratic in that middle only: enough for a trace of a few
// hundred lines that changed in a few places.
func unifiedDiff(fromName, toName, from, to string) string {
	if from == to {
		return ""
	}
	a, b := splitLines(from), splitLines(to)
	ops := diffLines(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
	for _, h := range hunks(ops) {
		writeHunk(&sb, ops[h.start:h.end])
	}
	return sb.String()
}

// splitLines cuts a text into lines without their newlines; a last line
// without a newline is marked so that the diff shows it.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if trimmed, ok := strings.CutSuffix(l, "\n"); ok {
			lines[i] = trimmed
		} else {
			lines[i] = l + " (no newline at end)"
		}
	}
	return lines
}

// lineOp is one line of the diff: kept (' '), removed ('-') or added
// ('+'), with its line numbers in both texts (1-based; the number it
// would have where it is absent).
type lineOp struct {
	mark         byte
	text         string
	aLine, bLine int
}

// diffLines lists the lines of a and b in order, each marked kept,
// removed or added.
func diffLines(a, b []string) []lineOp {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ops := make([]lineOp, 0, len(a)+len(b))
	for i := range head {
		ops = append(ops, lineOp{' ', a[i], i + 1, i + 1})
	}
	ops = append(ops, diffMiddle(a[head:len(a)-tail], b[head:len(b)-tail], head)...)
	for k := tail; k > 0; k-- {
		i, j := len(a)-k, len(b)-k
		ops = append(ops, lineOp{' ', a[i], i + 1, j + 1})
	}
	return ops
}

// diffMiddle diffs the middle parts of two texts, which start at line
// offset+1 in both, by a table of longest common subsequence lengths.
func diffMiddle(a, b []string, offset int) []lineOp {
	n, m := len(a), len(b)
	// lcs[i][j] is the length of a longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []lineOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, lineOp{' ', a[i], offset + i + 1, offset + j + 1})
			i++
			j++
		case j == m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, lineOp{'-', a[i], offset + i + 1, offset + j + 1})
			i++
		default:
			ops = append(ops, lineOp{'+', b[j], offset + i + 1, offset + j + 1})
			j++
		}
	}
	return ops
}

// span is a half-open range of a diff's lines.
type span struct{ start, end int }

// hunks groups the changed lines of a diff with diffContext kept lines
// around them; changes closer than twice diffContext share a hunk.
func hunks(ops []lineOp) []span {
	var out []span
	for i, op := range ops {
		if op.mark == ' ' {
			continue
		}
		start, end := max(0, i-diffContext), min(len(ops), i+1+diffContext)
		if n := len(out); n > 0 && start <= out[n-1].end {
			out[n-1].end = end
			continue
		}
		out = append(out, span{start, end})
	}
	return out
}

// writeHunk writes one hunk: its @@ header with the line ranges in both
// texts, then its lines.
func writeHunk(sb *strings.Builder, ops []lineOp) {
	aStart, bStart := ops[0].aLine, ops[0].bLine
	aCount, bCount := 0, 0
	for _, op := range ops {
		if op.mark != '+' {
			aCount++
		}
		if op.mark != '-' {
			bCount++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aStart, aCount), hunkRange(bStart, bCount))
	for _, op := range ops {
		sb.WriteByte(op.mark)
		sb.WriteString(op.text)
		sb.WriteByte('\n')
	}
}

// hunkRange writes a hunk's range as diff -u does: "start,count", the
// start alone for one line, the line before the hunk's place when it
// holds no line of that text.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
