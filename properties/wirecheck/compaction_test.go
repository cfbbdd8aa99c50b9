package wirecheck

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// compactionRun is a run of the records labels spells ("M:tool C:text
// ..."), held to three compactions in a row.
func compactionRun(labels string) Run {
	var recs []wire.Record
	for i, l := range strings.Fields(labels) {
		purpose, answer, _ := strings.Cut(l, ":")
		rec := wire.Record{Seq: i + 1, Answer: answer, Purpose: loop.PurposeMain}
		if purpose == "C" {
			rec.Purpose = loop.PurposeCompact
		}
		recs = append(recs, rec)
	}
	return Run{Records: recs, Limits: Options{MaxCompactions: 3}}
}

// TestBoundedCompaction: compactions back to back and compactions after
// every main reply are caught at the fourth; a compaction that buys two
// main replies or more is progress, and failed main requests buy none.
func TestBoundedCompaction(t *testing.T) {
	for _, tc := range []struct {
		labels string
		at     int // request of the violation; 0 for none
	}{
		{"M:tool C:text C:text C:text C:text", 5},
		{"M:tool C:text M:tool C:text M:tool C:text M:tool C:text M:tool", 8},
		{"C:text M:tool C:text M:tool C:text M:tool C:text", 7},
		{"M:tool C:text M:503 M:tool C:text M:503 M:tool C:text M:tool C:text", 10},
		{"M:tool C:text M:tool C:text M:tool C:text M:tool M:tool C:text M:tool C:text", 0},
		{"M:tool M:tool C:text M:tool M:tool C:text M:tool M:tool C:text M:tool M:tool C:text", 0},
		{"M:tool C:text M:tool M:tool M:tool M:tool M:tool M:tool M:tool M:tool M:text", 0},
		{"M:tool C:text C:text C:text M:tool M:tool C:text", 0},
	} {
		v := boundedCompaction(compactionRun(tc.labels))
		if tc.at == 0 {
			assert.Nil(t, v, tc.labels)
			continue
		}
		require.NotNil(t, v, tc.labels)
		assert.Equal(t, tc.at, v.Request, tc.labels)
		assert.Contains(t, v.Detail, "4 compaction requests in a row", tc.labels)
	}
}

// compactionCase is a case whose main replies call a tool, those at
// the indices of full reporting an input at the edge of the window,
// then the answer that completes the session.
func compactionCase(tools int, full ...int) Case {
	c := Case{API: "messages"}
	for i := range tools {
		s := fakemodel.Step{Text: "Let me look.", ToolUses: []fakemodel.ToolUse{{Name: DefaultTools[0], Input: `{"path":"main.go"}`}}}
		if slices.Contains(full, i) {
			s.InputTokens = DefaultModel.ContextWindow - 1
		}
		c.Steps = append(c.Steps, s)
	}
	c.Steps = append(c.Steps, fakemodel.Step{Text: "Done: the test passes.", Repeat: fakemodel.Forever})
	return c
}

// labels are the run's request labels.
func labels(r Run) string {
	var out []string
	for _, rec := range r.Records {
		out = append(out, rec.Label())
	}
	return strings.Join(out, " ")
}

// TestSampleAgentCompaction: the correct sample agent that compacts once
// and then runs many tool turns keeps bounded-compaction; when the
// window is full again one reply after a compaction it stops with an
// error rather than compact again; the broken one, compacting after
// every reply, is caught on the same case.
func TestSampleAgentCompaction(t *testing.T) {
	o := Options{MaxRetries: 3}
	ctx := context.Background()

	run, err := Play(ctx, testAgent{maxRetries: 3}.run, compactionCase(8, 0), o)
	require.NoError(t, err)
	assert.Empty(t, Check(run), labels(run))
	assert.False(t, run.Failed, "%s: %v", labels(run), run.Err)
	assert.Equal(t, 1, strings.Count(labels(run), "C:"), labels(run))

	run, err = Play(ctx, testAgent{maxRetries: 3}.run, compactionCase(8, 0, 1, 2, 3, 4), o)
	require.NoError(t, err)
	assert.Empty(t, Check(run), labels(run))
	assert.True(t, run.Failed, "compacting frees nothing: it stops (%s)", labels(run))

	run, err = Play(ctx, testAgent{maxRetries: 3, breaks: "bounded-compaction"}.run, compactionCase(8, 0), o)
	require.NoError(t, err)
	assert.Equal(t, []string{"bounded-compaction"}, brokenNames(func() []string {
		var out []string
		for _, v := range Check(run) {
			out = append(out, v.Error())
		}
		return out
	}()), labels(run))
}
