package otelexport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

func TestExampleScenarioSpanTree(t *testing.T) {
	tr := goldenTrace(t, exampleScenario)
	roots := sdkTree(t, inMemory(t, Episode{Name: exampleScenario, Trace: tr}))
	require.Len(t, roots, 1)
	var b strings.Builder
	roots[0].render(&b, 0)
	// one request's span per attempt, the compaction's request its own,
	// the retry's delay (582 ms) between the two attempts
	assert.Equal(t, `invoke_agent loopsim [0..607 ms]
  chat claude-sonnet-5-5 [1..2 ms]
  execute_tool Bash [3..4 ms]
  chat claude-sonnet-5-5 [8..9 ms]
  chat claude-sonnet-5-5 [593..594 ms]
  chat claude-sonnet-5-5 [596..597 ms]
  chat claude-sonnet-5-5 [603..604 ms]
`, b.String())

	root := roots[0]
	assert.Equal(t, OpInvokeAgent, root.Attrs[AttrOperationName])
	assert.Equal(t, "anthropic", root.Attrs[AttrProviderName])
	assert.Equal(t, exampleScenario, root.Attrs[AttrConversationID])
	assert.Equal(t, string(loop.Completed), root.Attrs[AttrTerminal])
	assert.Equal(t, "Unset", root.Status)

	first := root.Children[0]
	assert.Equal(t, OpChat, first.Attrs[AttrOperationName])
	assert.Equal(t, "claude-sonnet-5-5", first.Attrs[AttrRequestModel])
	assert.Equal(t, "128000", first.Attrs[AttrRequestMaxTokens])
	assert.Equal(t, "23000", first.Attrs[AttrUsageInputTokens])
	assert.Equal(t, "80", first.Attrs[AttrUsageOutputTokens])
	assert.Equal(t, `["tool_use"]`, first.Attrs[AttrResponseFinishReasons])
	assert.Equal(t, "main", first.Attrs[AttrPurpose])
	assert.Equal(t, "1", first.Attrs[AttrAttempt])

	tool := root.Children[1]
	assert.Equal(t, OpExecuteTool, tool.Attrs[AttrOperationName])
	assert.Equal(t, "Bash", tool.Attrs[AttrToolName])
	assert.Equal(t, "toolu_1_1", tool.Attrs[AttrToolCallID])

	dropped := root.Children[2]
	assert.Equal(t, "connection", dropped.Attrs[AttrErrorType])
	assert.Equal(t, "Error", dropped.Status)
	require.Len(t, dropped.Events, 1)
	assert.Contains(t, dropped.Events[0], EventFault+" "+AttrFaultKind+"=connection")

	retried := root.Children[3]
	assert.Equal(t, "2", retried.Attrs[AttrAttempt])
	assert.Equal(t, "prompt_too_long", retried.Attrs[AttrErrorType])

	compact := root.Children[4]
	assert.Equal(t, "compact", compact.Attrs[AttrPurpose])
	assert.NotContains(t, compact.Attrs, AttrErrorType)

	var names []string
	for _, ev := range root.Events {
		names = append(names, strings.Fields(ev)[0])
	}
	assert.Contains(t, names, EventRetry)
	assert.Contains(t, names, EventCompaction)
	assert.Contains(t, names, EventTransition)
	assert.Contains(t, names, EventWithheld)
}

// Every golden trace of the scenario library: one trace with one root, a
// chat span per request, an execute_tool span per tool result, error.type
// and a fault event on each failed request, children inside the root.
func TestLibrarySpanShape(t *testing.T) {
	files, err := filepath.Glob(goldenDir + "/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(f[len(goldenDir)+1:], ".jsonl")
		t.Run(name, func(t *testing.T) {
			tr := goldenTrace(t, name)
			roots := sdkTree(t, inMemory(t, Episode{Name: name, Trace: tr}))
			require.Len(t, roots, 1)
			root := roots[0]
			var chats, tools, failed int
			for _, c := range root.Children {
				assert.GreaterOrEqual(t, c.Start, root.Start)
				assert.LessOrEqual(t, c.End, root.End)
				assert.Empty(t, c.Children)
				switch c.Attrs[AttrOperationName] {
				case OpChat:
					chats++
					if c.Attrs[AttrErrorType] != "" {
						failed++
						assert.Equal(t, "Error", c.Status)
						assert.True(t, hasEvent(c, EventFault+" "+AttrFaultKind+"="+c.Attrs[AttrErrorType]), c.Events)
					}
				case OpExecuteTool:
					tools++
				default:
					t.Errorf("span %q with operation %q", c.Name, c.Attrs[AttrOperationName])
				}
			}
			var wantFailed, wantTools int
			for _, e := range tr {
				switch e.(type) {
				case loop.RequestFailed:
					wantFailed++
				case loop.ToolResultEvent:
					wantTools++
				}
			}
			assert.Equal(t, len(tr.Requests()), chats)
			assert.Equal(t, wantFailed, failed)
			assert.GreaterOrEqual(t, tools, wantTools)
			assert.Equal(t, len(tr.Transitions()), countEvents(root, EventTransition))
		})
	}
}

func hasEvent(n *node, prefix string) bool {
	for _, e := range n.Events {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}

func countEvents(n *node, name string) int {
	c := 0
	for _, e := range n.Events {
		if strings.Fields(e)[0] == name {
			c++
		}
	}
	return c
}

// The same episodes give the same spans, IDs included.
func TestSpansDeterministic(t *testing.T) {
	tr := goldenTrace(t, exampleScenario)
	a, b := inMemory(t, Episode{Name: "x", Trace: tr}), inMemory(t, Episode{Name: "x", Trace: tr})
	require.Equal(t, len(a), len(b))
	for i := range a {
		assert.Equal(t, a[i].SpanContext, b[i].SpanContext)
		assert.Equal(t, a[i].StartTime, b[i].StartTime)
	}
	c := inMemory(t, Episode{Name: "y", Trace: tr})
	assert.NotEqual(t, a[0].SpanContext.TraceID(), c[0].SpanContext.TraceID(), "another episode name, another trace")
}

// Two episodes are two traces.
func TestTwoEpisodesTwoTraces(t *testing.T) {
	tr := goldenTrace(t, exampleScenario)
	roots := sdkTree(t, inMemory(t, Episode{Name: "a", Trace: tr}, Episode{Name: "b", Trace: tr}))
	require.Len(t, roots, 2)
	assert.Equal(t, "a", roots[0].Attrs[AttrConversationID])
	assert.Equal(t, "b", roots[1].Attrs[AttrConversationID])
}

// A trace cut short (no terminal, a request with no outcome, tools with
// no result) still gives ended spans, the root marked halted.
func TestTruncatedTrace(t *testing.T) {
	tr := loop.Trace{
		loop.IterationStart{Iteration: 1, Turn: 1},
		loop.RequestEvent{Purpose: loop.PurposeMain, Model: "m", Attempt: 1},
		loop.ResponseEvent{Purpose: loop.PurposeMain, StopReason: "tool_use"},
		loop.ToolBatch{ToolUses: []string{"t2", "t1"}},
		loop.RequestEvent{Purpose: loop.PurposeMain, Model: "m", Attempt: 1},
	}
	roots := sdkTree(t, inMemory(t, Episode{Name: "cut", Trace: tr}))
	require.Len(t, roots, 1)
	assert.Equal(t, "true", roots[0].Attrs[AttrHalted])
	assert.Len(t, roots[0].Children, 4)
	for _, c := range roots[0].Children {
		assert.LessOrEqual(t, c.End, roots[0].End)
	}
}
