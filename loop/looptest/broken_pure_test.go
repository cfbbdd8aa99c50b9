package looptest

import (
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/require"
)

// wantViolation fails t unless err reports a violation containing want.
func wantViolation(t *testing.T, err error, want string) {
	t.Helper()
	require.ErrorContains(t, err, want, "the check reports the violation")
}

// snipFunc adapts a function to loop.Snipper.
type snipFunc func(loop.SnipInput) loop.SnipResult

func (f snipFunc) Snip(in loop.SnipInput) loop.SnipResult { return f(in) }

func TestCheckSnipperBroken(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    snipFunc
		want string
	}{
		{"drops the newest", func(in loop.SnipInput) loop.SnipResult {
			if len(in.Messages) < 2 {
				return loop.SnipResult{Messages: in.Messages}
			}
			last := in.Messages[len(in.Messages)-1]
			return loop.SnipResult{Messages: in.Messages[:len(in.Messages)-1], Removed: []string{last.ID}}
		}, "one of the newest"},
		{"misreports removed", func(in loop.SnipInput) loop.SnipResult {
			res := loop.OldestSnipper{}.Snip(in)
			if len(res.Removed) > 0 {
				res.Removed = res.Removed[1:]
			}
			return res
		}, "reported removed"},
		{"modifies its input", func(in loop.SnipInput) loop.SnipResult {
			if len(in.Messages) > 0 {
				in.Messages[0].Tokens++
			}
			return loop.SnipResult{Messages: in.Messages}
		}, "modified its input"},
		{"orphans a tool result", func(in loop.SnipInput) loop.SnipResult {
			// drop the first assistant message only, keeping its results
			for i, m := range in.Messages {
				if m.Role == loop.RoleAssistant && len(m.ToolUses()) > 0 && i < len(in.Messages)-in.KeepRecent {
					out := append(append([]loop.Message(nil), in.Messages[:i]...), in.Messages[i+1:]...)
					return loop.SnipResult{Messages: out, Removed: []string{m.ID}, TokensFreed: m.Tokens}
				}
			}
			return loop.SnipResult{Messages: in.Messages}
		}, "lost its tool_use"},
		{"snips under the threshold", func(in loop.SnipInput) loop.SnipResult {
			in.Threshold = 0
			return loop.OldestSnipper{}.Snip(in)
		}, "under the threshold"},
		{"overstates tokens freed", func(in loop.SnipInput) loop.SnipResult {
			res := loop.OldestSnipper{}.Snip(in)
			res.TokensFreed += 7
			return res
		}, "TokensFreed"},
		{"panics", func(loop.SnipInput) loop.SnipResult { panic("boom") }, "panicked: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantViolation(t, CheckSnipper(tc.s), tc.want) })
	}
}

// microFunc adapts a function to loop.Microcompactor.
type microFunc func(loop.MicrocompactInput) loop.MicrocompactResult

func (f microFunc) Microcompact(in loop.MicrocompactInput) loop.MicrocompactResult { return f(in) }

func TestCheckMicrocompactorBroken(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    microFunc
		want string
	}{
		{"removes a message", func(in loop.MicrocompactInput) loop.MicrocompactResult {
			if len(in.Messages) > 1 {
				return loop.MicrocompactResult{Messages: in.Messages[1:]}
			}
			return loop.MicrocompactResult{Messages: in.Messages}
		}, "never removes or adds messages"},
		{"clears the newest", func(in loop.MicrocompactInput) loop.MicrocompactResult {
			return loop.KeepRecentMicrocompactor{}.Microcompact(loop.MicrocompactInput{Messages: in.Messages})
		}, "one of the newest"},
		{"clears in place", func(in loop.MicrocompactInput) loop.MicrocompactResult {
			n := 0
			for i := range in.Messages {
				for j := range in.Messages[i].Blocks {
					if b := &in.Messages[i].Blocks[j]; b.Type == loop.BlockToolResult && i < len(in.Messages)/2 {
						b.Text = loop.ClearedToolResult
						n++
					}
				}
			}
			return loop.MicrocompactResult{Messages: in.Messages, Cleared: n}
		}, "modified its input"},
		{"miscounts", func(in loop.MicrocompactInput) loop.MicrocompactResult {
			res := loop.KeepRecentMicrocompactor{}.Microcompact(in)
			res.Cleared++
			return res
		}, "reported Cleared"},
		{"changes a tool_use", func(in loop.MicrocompactInput) loop.MicrocompactResult {
			out := cloneMessages(in.Messages)
			for i := range out {
				for j := range out[i].Blocks {
					if out[i].Blocks[j].Type == loop.BlockToolUse {
						out[i].Blocks[j].Input = "{}"
					}
				}
			}
			return loop.MicrocompactResult{Messages: out}
		}, "only tool results may"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantViolation(t, CheckMicrocompactor(tc.m), tc.want) })
	}
}

// collapser adapts two functions to loop.Collapser.
type collapser struct {
	collapse, drain func(loop.CollapseInput) loop.CollapseResult
}

func (c collapser) Collapse(in loop.CollapseInput) loop.CollapseResult { return c.collapse(in) }
func (c collapser) Drain(in loop.CollapseInput) loop.CollapseResult    { return c.drain(in) }

func TestCheckCollapserBroken(t *testing.T) {
	span := loop.SpanCollapser{}
	good := collapser{span.Collapse, span.Drain}
	require.NoError(t, CheckCollapser(good), "SpanCollapser")
	for _, tc := range []struct {
		name string
		c    collapser
		want string
	}{
		{"reports a message removed that is not", collapser{good.collapse, func(in loop.CollapseInput) loop.CollapseResult {
			res := good.drain(in)
			if res.Committed > 0 {
				res.Removed = append(res.Removed, in.Messages[len(in.Messages)-1].ID)
			}
			return res
		}}, "reported removed"},
		{"drops a tool result", collapser{good.collapse, func(in loop.CollapseInput) loop.CollapseResult {
			for i, m := range in.Messages {
				if m.IsToolResult() && i < len(in.Messages)-in.KeepRecent && len(in.Staged) > 0 {
					out := append(append([]loop.Message(nil), in.Messages[:i]...), in.Messages[i+1:]...)
					return loop.CollapseResult{Messages: out, Committed: 1, Removed: []string{m.ID}}
				}
			}
			return loop.CollapseResult{Messages: in.Messages}
		}}, "lost its tool_result"},
		{"drain keeps spans staged", collapser{good.collapse, func(in loop.CollapseInput) loop.CollapseResult {
			res := good.drain(in)
			res.Staged = in.Staged
			return res
		}}, "a drain commits everything"},
		{"folds the newest", collapser{func(in loop.CollapseInput) loop.CollapseResult {
			in.KeepRecent = 0
			return good.collapse(in)
		}, good.drain}, "(KeepRecent)"},
		{"commits without saying so", collapser{good.collapse, func(in loop.CollapseInput) loop.CollapseResult {
			res := good.drain(in)
			res.Committed = 0
			return res
		}}, "reported no commit"},
		{"stages a span it does not keep", collapser{func(in loop.CollapseInput) loop.CollapseResult {
			res := good.collapse(in)
			if len(res.Staged) > 0 {
				res.Staged = []loop.Span{{First: "nope", Last: res.Staged[0].Last}}
			}
			return res
		}, good.drain}, "not in the output"},
		{"commits under the threshold", collapser{func(in loop.CollapseInput) loop.CollapseResult {
			in.CommitAt = 0
			res := good.collapse(in)
			if len(in.Staged) == 0 {
				in.Staged = res.Staged
				return good.drain(in)
			}
			return res
		}, good.drain}, "under CommitAt"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantViolation(t, CheckCollapser(tc.c), tc.want) })
	}
}

// counterFunc adapts a function to loop.TokenCounter.
type counterFunc func([]loop.Message) int

func (f counterFunc) Count(msgs []loop.Message) int { return f(msgs) }

func TestCheckTokenCounterBroken(t *testing.T) {
	calls := 0
	for _, tc := range []struct {
		name string
		c    counterFunc
		want string
	}{
		{"negative", func(msgs []loop.Message) int { return -1 - len(msgs) }, "is negative"},
		{"not deterministic", func([]loop.Message) int { calls++; return calls }, "then"},
		{"falls on append", func(msgs []loop.Message) int { return 1000 - len(msgs) }, "lowered the count"},
		{"modifies its input", func(msgs []loop.Message) int {
			for i := range msgs {
				msgs[i].Tokens = 1
			}
			return len(msgs)
		}, "modified its input"},
		{"panics", func([]loop.Message) int { panic("count") }, "panicked: count"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantViolation(t, CheckTokenCounter(tc.c), tc.want) })
	}
}
