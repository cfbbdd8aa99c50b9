package looptest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// CheckCompactor checks a [loop.Compactor]; newCompactor must return a
// fresh instance each time. Requests carry a stand-in [loop.Caller] that
// answers every request with "<summary>...</summary>", so a model-backed
// compactor such as [loop.SummaryCompactor] can be checked too. It
// compacts with a cancelled context, then a series of conversations
// (auto and reactive, with and without a preserved tail) with one
// instance, and checks that:
//
//   - Compact returns promptly with a cancelled context, and returns
//     promptly once the check cancels a call still running after a short
//     grace period;
//   - a success has a summary, a non-negative SummaryTokens and keeps
//     fewer messages than it was given (0 <= Keep < len(Messages));
//   - requests sent through the Caller are compaction requests for the
//     request's model, with messages;
//   - the request's messages are not modified.
//
// Errors and panics are failed compactions; they are not violations.
func CheckCompactor(newCompactor func() loop.Compactor) error {
	r := &report{check: "CheckCompactor"}
	res := run(cancelledContext(), false, func(ctx context.Context) (loop.CompactResult, error) {
		return newCompactor().Compact(ctx, compactRequest(4, loop.TriggerAuto, 0, &stubCaller{}))
	})
	if !res.returned {
		r.errorf("Compact with a cancelled context did not return within %v", timeout)
	}

	c := newCompactor()
	n := 0
	for _, size := range []int{1, 2, 4, 8} {
		for _, trigger := range []loop.CompactTrigger{loop.TriggerAuto, loop.TriggerReactive} {
			for _, tail := range []int{0, 2} {
				n++
				caller := &stubCaller{}
				req := compactRequest(size, trigger, tail, caller)
				clone := cloneMessages(req.Messages)
				res := run(context.Background(), true, func(ctx context.Context) (loop.CompactResult, error) {
					return c.Compact(ctx, req)
				})
				what := fmt.Sprintf("call %d (%s, %d messages, tail %d)", n, trigger, len(req.Messages), tail)
				if !res.returned {
					r.errorf("%s: Compact did not return within %v of its context being cancelled", what, timeout)
					return r.err()
				}
				unmodified(r, what+": Compact", req.Messages, clone)
				for i, sent := range caller.requests() {
					if sent.Purpose != loop.PurposeCompact || sent.Model != req.Model || len(sent.Messages) == 0 {
						r.errorf("%s: caller request %d has purpose %q, model %q and %d messages; want %q, %q and some",
							what, i+1, sent.Purpose, sent.Model, len(sent.Messages), loop.PurposeCompact, req.Model)
					}
				}
				if res.hasPanic || res.err != nil {
					continue
				}
				v := res.val
				if v.Summary == "" {
					r.errorf("%s: succeeded with an empty summary", what)
				}
				if v.SummaryTokens < 0 {
					r.errorf("%s: SummaryTokens %d is negative", what, v.SummaryTokens)
				}
				if v.Keep < 0 || v.Keep >= len(req.Messages) {
					r.errorf("%s: Keep %d is outside [0, %d): a compaction keeps fewer messages than it is given", what, v.Keep, len(req.Messages))
				}
			}
		}
	}
	return r.err()
}

func compactRequest(size int, trigger loop.CompactTrigger, tail int, caller loop.Caller) loop.CompactRequest {
	msgs := conversation(size)
	return loop.CompactRequest{Trigger: trigger, Messages: msgs, Tokens: loop.SumTokens(msgs),
		Model: "looptest-model", MaxTokens: 8000, Tools: []string{"Read"}, PreserveTail: tail, Call: caller}
}

// stubCaller answers every request with a tagged summary.
type stubCaller struct {
	mu   sync.Mutex
	sent []loop.Request
}

// Call implements loop.Caller.
func (s *stubCaller) Call(ctx context.Context, req loop.Request) (loop.Reply, error) {
	s.mu.Lock()
	s.sent = append(s.sent, req)
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return loop.Reply{}, err
	}
	text := fmt.Sprintf("<summary>%d messages: %s</summary>", len(req.Messages), strings.Repeat("x", 10))
	return loop.Reply{Blocks: []loop.Block{{Type: loop.BlockText, Text: text}},
		Response: loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: req.InputTokens, OutputTokens: 12}}}, nil
}

func (s *stubCaller) requests() []loop.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]loop.Request(nil), s.sent...)
}
