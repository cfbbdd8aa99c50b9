package fakemodel

import (
	"context"
	"strconv"

	"github.com/loopsim/loopsim/loop"
)

// SessionStep is one call of a real session, as [Session] replays it.
type SessionStep struct {
	// Output is the call's output, in tokens.
	Output int `json:"output"`
	// Tools is the number of tool calls in its reply.
	Tools int `json:"tools"`
	// Adds is what the context gained after the reply besides the reply
	// itself, in tokens, before the next call: tool results, reminders,
	// and the user's next prompt when the call ended a turn.
	Adds int `json:"adds"`
}

// Session replays the calls of a real session through the loop: a
// [loop.Model] and [loop.Tools] that answer every main request with the
// next call's output and tool calls, and every tool batch with what the
// context really gained. The whole session is one query: a call that
// ended a turn (no tool call) is replayed as one tool call whose result
// is the user's next prompt, so the loop's policy acts at every call as
// it would between turns. The last step answers.
//
// What the loop does differently from the real agent (compacting
// elsewhere, or not at all) changes the context the replayed calls see,
// not the calls: the session's outputs and additions are replayed as
// they were. A compaction request is answered with Summary tokens.
// A request at or over Window fails prompt-too-long. Session is not safe
// for concurrent use.
type Session struct {
	// Start is the starting context, in tokens.
	Start int
	// Steps are the calls in order.
	Steps []SessionStep
	// Summary is the output of a compaction request, in tokens.
	Summary int
	// Window is the model's context window.
	Window int

	next     int    // the step the next new main request replays
	answered string // last message ID of the request answered last
	asked    int    // the step answered last
	toolIDs  int
	pending  []int // result sizes of the current batch, in order

	cacheFirst string
	cacheInput int

	// StepOf records, for each successful main reply, the index of the
	// step it replayed (a reply the loop dropped and asked again counts
	// again).
	StepOf []int
}

var (
	_ loop.Model = (*Session)(nil)
	_ loop.Tools = (*Session)(nil)
)

// Initial is the starting history: one user message of the starting
// size.
func (s *Session) Initial() []loop.Message {
	return []loop.Message{{Role: loop.RoleUser, Tokens: s.Start,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: "The session's first prompt."}}}}
}

// Stream implements [loop.Model].
func (s *Session) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	if req.InputTokens >= s.Window {
		return loop.Response{}, loop.PromptTooLongError(req.InputTokens, s.Window)
	}
	limit := min(req.MaxTokens, s.Window-req.InputTokens)
	if req.Purpose == loop.PurposeCompact {
		out, stop := s.Summary, loop.StopEndTurn
		if out > limit {
			out, stop = limit, loop.StopMaxTokens
		}
		yield(loop.Block{Type: loop.BlockText, Text: "<summary>The session so far.</summary>"})
		return loop.Response{StopReason: stop, Usage: s.usage(req, out)}, nil
	}
	last := ""
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1].ID
	}
	if len(s.Steps) == 0 {
		yield(loop.Block{Type: loop.BlockText, Text: "Done."})
		return loop.Response{StopReason: loop.StopEndTurn, Usage: s.usage(req, min(1, limit))}, nil
	}
	i := s.next
	if last == s.answered && s.answered != "" {
		i = s.asked // the loop dropped the last reply and asks again
	}
	if i >= len(s.Steps) {
		i = len(s.Steps) - 1
	}
	st := s.Steps[i]
	s.answered, s.asked, s.next = last, i, i+1
	out := st.Output
	if out > limit {
		yield(loop.Block{Type: loop.BlockText, Text: "A long reply, cut."})
		return loop.Response{StopReason: loop.StopMaxTokens, Usage: s.usage(req, limit)}, nil
	}
	s.StepOf = append(s.StepOf, i)
	if i == len(s.Steps)-1 {
		yield(loop.Block{Type: loop.BlockText, Text: "Done."})
		return loop.Response{StopReason: loop.StopEndTurn, Usage: s.usage(req, out)}, nil
	}
	n := max(st.Tools, 1)
	s.pending = s.pending[:0]
	for k := range n {
		size := st.Adds / n
		if k == 0 {
			size += st.Adds % n
		}
		s.pending = append(s.pending, size)
	}
	yield(loop.Block{Type: loop.BlockText, Text: "Next."})
	for range n {
		s.toolIDs++
		yield(loop.Block{Type: loop.BlockToolUse, ID: "toolu_" + strconv.Itoa(s.toolIDs), Name: "Replay", Input: `{}`})
	}
	return loop.Response{StopReason: loop.StopToolUse, Usage: s.usage(req, out)}, nil
}

// Run implements [loop.Tools]: the batch's results carry what the context
// really gained after the call, split evenly over the batch (the first
// result takes the remainder; a result is at least one token). A call
// outside the batch gets a one-token result.
func (s *Session) Run(ctx context.Context, call loop.ToolCall) (loop.ToolOutcome, error) {
	if err := ctx.Err(); err != nil {
		return loop.ToolOutcome{}, err
	}
	size := 1
	if call.Index < len(s.pending) {
		size = max(s.pending[call.Index], 1)
	}
	return loop.ToolOutcome{Content: "replayed result", Tokens: size}, nil
}

// usage reads the prefix shared with the previous request from the
// prompt cache and writes the rest, as [Episode] does.
func (s *Session) usage(req loop.Request, output int) loop.Usage {
	first := ""
	if len(req.Messages) > 0 {
		first = req.Messages[0].ID
	}
	read := 0
	if first == s.cacheFirst {
		read = min(s.cacheInput, req.InputTokens)
	}
	s.cacheFirst, s.cacheInput = first, req.InputTokens
	return loop.Usage{CacheReadInputTokens: read, CacheCreationInputTokens: req.InputTokens - read, OutputTokens: output}
}
