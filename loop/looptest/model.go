package looptest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// modelRequests is how many requests CheckModel sends to one model.
const modelRequests = 8

// CheckModel checks a [loop.Model]. newModel must return a fresh model
// each time; CheckModel sends each one a series of plausible requests
// (the third is a compaction request) until the series ends or the model
// returns an error that is not a *loop.RequestError. It checks that:
//
//   - a cancelled context makes Stream return promptly with the context's
//     error, and cancelling mid-stream makes it return promptly;
//   - Stream never panics, and never calls yield after it returned;
//   - yielded blocks follow the loop's block rules (a tool_use has an id
//     and a name, no block is a tool_result) and tool_use ids are unique
//     across the run;
//   - a response has a known stop reason and non-negative usage, with no
//     more output than the request's max_tokens;
//   - a *loop.RequestError has a known kind, a message, the status its
//     kind implies and a non-negative retry-after; a prompt-too-long
//     reads "prompt is too long: N tokens > M maximum";
//   - any other error is not a context error while the context is live;
//   - Stream does not modify the request's messages;
//   - two fresh models answer the same requests the same way (the
//     harness needs determinism).
func CheckModel(newModel func() loop.Model) error {
	r := &report{check: "CheckModel"}

	res := streamOnce(newModel(), cancelledContext(), request(1), nil)
	switch {
	case !res.returned:
		r.errorf("Stream with a cancelled context did not return within %v", timeout)
	case res.hasPanic:
		r.errorf("Stream with a cancelled context panicked: %v", res.panicked)
	case res.err == nil:
		r.errorf("Stream with a cancelled context returned no error")
	case !errors.Is(res.err, context.Canceled):
		r.errorf("Stream with a cancelled context returned %v, not the context's error", res.err)
	}

	// cancel mid-stream, after the first block
	ctx, cancel := context.WithCancel(context.Background())
	res = streamOnce(newModel(), ctx, request(1), func(loop.Block) { cancel() })
	cancel()
	switch {
	case !res.returned:
		r.errorf("Stream did not return within %v of its context being cancelled mid-stream", timeout)
	case res.hasPanic:
		r.errorf("Stream cancelled mid-stream panicked: %v", res.panicked)
	}

	first := modelSeries(r, newModel())
	second := modelSeries(&report{check: r.check}, newModel())
	for i := range min(len(first), len(second)) {
		if first[i] != second[i] {
			r.errorf("two fresh models answered request %d differently:\n\t%s\n\t%s", i+1, first[i], second[i])
			break
		}
	}
	if len(first) != len(second) {
		r.errorf("two fresh models answered %d and %d requests", len(first), len(second))
	}
	return r.err()
}

// request returns the n-th request of CheckModel's series.
func request(n int) loop.Request {
	msgs := conversation(n)
	purpose := loop.PurposeMain
	if n == 3 {
		purpose = loop.PurposeCompact
		msgs = append(msgs, loop.Message{ID: "summarise", Role: loop.RoleUser, Meta: true, Tokens: 30,
			Blocks: []loop.Block{{Type: loop.BlockText, Text: loop.SummariseInstruction}}})
	}
	return loop.Request{Purpose: purpose, Model: "looptest-model", MaxTokens: 8000,
		Messages: msgs, InputTokens: loop.SumTokens(msgs), Tools: []string{"Read", "Write"}}
}

// streamed is one Stream call's outcome.
type streamed struct {
	blocks []loop.Block
	resp   loop.Response
}

// streamOnce calls m.Stream, collecting blocks; onBlock, if set, runs
// after each block is collected. Blocks yielded after Stream returned are
// counted in late.
func streamOnce(m loop.Model, ctx context.Context, req loop.Request, onBlock func(loop.Block)) result[streamed] {
	res, _ := streamCounted(m, ctx, req, onBlock)
	return res
}

func streamCounted(m loop.Model, ctx context.Context, req loop.Request, onBlock func(loop.Block)) (result[streamed], func() int) {
	var mu sync.Mutex
	var blocks []loop.Block
	over, late := false, 0
	res := run(ctx, false, func(ctx context.Context) (streamed, error) {
		resp, err := m.Stream(ctx, req, func(b loop.Block) {
			mu.Lock()
			if over {
				late++
				mu.Unlock()
				return
			}
			blocks = append(blocks, b)
			mu.Unlock()
			if onBlock != nil {
				onBlock(b)
			}
		})
		return streamed{resp: resp}, err
	})
	mu.Lock()
	over = true
	res.val.blocks = blocks
	mu.Unlock()
	return res, func() int {
		mu.Lock()
		defer mu.Unlock()
		return late
	}
}

// modelSeries sends CheckModel's series of requests to m, checks each
// answer and returns a transcript line per answer.
func modelSeries(r *report, m loop.Model) []string {
	var transcript []string
	ids := map[string]int{}
	var lates []func() int
	for n := 1; n <= modelRequests; n++ {
		req := request(n)
		clone := cloneMessages(req.Messages)
		res, late := streamCounted(m, context.Background(), req, nil)
		lates = append(lates, late)
		what := fmt.Sprintf("request %d (%s)", n, req.Purpose)
		if !res.returned {
			r.errorf("%s: Stream did not return within %v", what, timeout)
			return transcript
		}
		if res.hasPanic {
			r.errorf("%s: Stream panicked: %v", what, res.panicked)
			return transcript
		}
		unmodified(r, what+": Stream", req.Messages, clone)
		for i, b := range res.val.blocks {
			if err := checkBlock(b); err != nil {
				r.errorf("%s: block %d: %v", what, i, err)
			}
			switch b.Type {
			case loop.BlockToolResult:
				r.errorf("%s: block %d is a tool_result; a model does not send tool results", what, i)
			case loop.BlockToolUse:
				if prev, ok := ids[b.ID]; ok && b.ID != "" {
					r.errorf("%s: tool_use id %q was already used by request %d", what, b.ID, prev)
				}
				ids[b.ID] = n
			}
		}
		line := fmt.Sprintf("blocks=%+v", res.val.blocks)
		if res.err != nil {
			line += " err=" + res.err.Error()
		} else {
			line += fmt.Sprintf(" resp=%+v", res.val.resp)
		}
		transcript = append(transcript, line)
		if res.err == nil {
			checkResponse(r, what, req, res.val.resp)
			continue
		}
		var re *loop.RequestError
		if errors.As(res.err, &re) {
			checkRequestError(r, what, req, re)
			continue
		}
		if isContextError(res.err) {
			r.errorf("%s: returned the context error %v while its context was live", what, res.err)
		} else if res.err.Error() == "" {
			r.errorf("%s: returned an error with no message", what)
		}
		break // a harness error ends a run
	}
	for i, late := range lates {
		if n := late(); n > 0 {
			r.errorf("request %d: yield was called %d times after Stream returned", i+1, n)
		}
	}
	return transcript
}

func checkResponse(r *report, what string, req loop.Request, resp loop.Response) {
	if !slices.Contains([]loop.StopReason{loop.StopEndTurn, loop.StopToolUse, loop.StopMaxTokens}, resp.StopReason) {
		r.errorf("%s: unknown stop reason %q", what, resp.StopReason)
	}
	u := resp.Usage
	if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadInputTokens < 0 || u.CacheCreationInputTokens < 0 {
		r.errorf("%s: negative usage %+v", what, u)
	}
	if req.MaxTokens > 0 && u.OutputTokens > req.MaxTokens {
		r.errorf("%s: reported %d output tokens, over the request's max_tokens %d", what, u.OutputTokens, req.MaxTokens)
	}
}

// pinnedStatus lists the kinds whose status the API fixes, so a Model
// must report the kind's own ([loop.ErrorKind.Status]). The other kinds
// with a status are left free: a server error is any 5xx (checked
// apart), a client may read an oversized image or document into
// media_too_large from another status, and fallback_triggered carries the
// status of the failure that triggered it.
var pinnedStatus = []loop.ErrorKind{
	loop.KindPromptTooLong, loop.KindRequestTooLarge, loop.KindRateLimited, loop.KindOverloaded, loop.KindInvalidRequest,
}

func checkRequestError(r *report, what string, req loop.Request, e *loop.RequestError) {
	if !slices.Contains(loop.ErrorKinds, e.Kind) {
		r.errorf("%s: RequestError kind %q is not one of loop.ErrorKinds", what, e.Kind)
	}
	if e.Message == "" {
		r.errorf("%s: RequestError %s has no message", what, e.Kind)
	}
	if e.Status != 0 && (e.Status < 100 || e.Status > 599) {
		r.errorf("%s: RequestError %s has status %d", what, e.Kind, e.Status)
	}
	if want := e.Kind.Status(); slices.Contains(pinnedStatus, e.Kind) && e.Status != want {
		r.errorf("%s: RequestError %s has status %d, want %d", what, e.Kind, e.Status, want)
	}
	if e.Kind == loop.KindServer && (e.Status < 500 || e.Status > 599) {
		r.errorf("%s: RequestError %s has status %d, want 5xx", what, e.Kind, e.Status)
	}
	if e.RetryAfterMS < 0 {
		r.errorf("%s: RequestError %s has a negative retry-after %d", what, e.Kind, e.RetryAfterMS)
	}
	if e.Kind == loop.KindPromptTooLong {
		var n, m int
		var rest string
		k, _ := fmt.Sscanf(e.Message+" .", "prompt is too long: %d tokens > %d maximum %s", &n, &m, &rest)
		if k != 3 || rest != "." || n < 0 || m < 0 {
			r.errorf("%s: prompt-too-long message %q does not read \"prompt is too long: N tokens > M maximum\"", what, e.Message)
		}
	}
}
