package loop_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// busyFixture exercises concurrency (safe tools run together, the summary
// runs in the background), compaction, recovery and hooks.
func busyFixture() fixture {
	batch := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Read"}, {Name: "Grep"}, {Name: "Read"}, {Name: "Bash"}}}
	return fixture{
		script: []fakemodel.Step{batch, batch, ptl, summary, truncated, truncated, textStep, textStep},
		tools: &fakemodel.Tools{ByName: map[string]fakemodel.Tool{
			"Read": {Concurrent: true, Tokens: 2_000}, "Grep": {Concurrent: true, Tokens: 500}, "Bash": {Tokens: 800},
		}},
		hooks:   &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "lint"}, {}}},
		summary: &fakemodel.Summarizer{Outcomes: []fakemodel.SummaryOutcome{{Text: "read files"}}},
	}
}

func jsonl(t *testing.T, res *loop.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, res.Trace.WriteJSONL(&b))
	return b.Bytes()
}

func TestSameInputsSameTraceWhateverGOMAXPROCS(t *testing.T) {
	first, _ := run(t, busyFixture())
	want := jsonl(t, first)
	require.Equal(t, loop.Completed, first.Terminal, "the busy fixture")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		for i := 0; i < 5; i++ {
			res, _ := run(t, busyFixture())
			if diff := cmp.Diff(string(want), string(jsonl(t, res))); diff != "" {
				t.Fatalf("GOMAXPROCS=%d run %d: trace differs (-want +got):\n%s", procs, i, diff)
			}
		}
	}
}

func TestObserverSeesEveryEventAsItHappens(t *testing.T) {
	f := busyFixture()
	var seen loop.Trace
	ctxRes, _ := run(t, f)
	f = busyFixture()
	f.tools.Cancel = nil
	model := &fakemodel.Model{Script: f.script, Window: sonnet.ContextWindow}
	cfg := loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, ToolNames: []string{"Read", "Bash"}, Tools: f.tools, StopHooks: f.hooks,
		Summarizer: f.summary, DiscardTrace: true, Observer: func(e loop.Event) { seen = append(seen, e) }}
	res, err := loop.Run(t.Context(), cfg, []loop.Message{loop.UserText("fix the bug")})
	require.NoError(t, err)
	assert.Nil(t, res.Trace, "DiscardTrace kept the trace")
	var a, b bytes.Buffer
	ctxRes.Trace.WriteJSONL(&a)
	seen.WriteJSONL(&b)
	assert.Empty(t, cmp.Diff(a.String(), b.String()), "the observer saw a different trace (-run +observer)")
}
