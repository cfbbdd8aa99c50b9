package properties

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// driver runs the real loop one iteration at a time: at every
// iteration_start the loop waits for the test to say what the iteration
// meets (a Happened), and every seam answers from it. The test then reads
// the iteration's events up to its transition or terminal.
type driver struct {
	cancel context.CancelFunc
	// happen carries the next iteration's outcome to the loop.
	happen chan Happened
	// events carries every event from the loop.
	events chan loop.Event
	// done is closed when loop.Run has returned.
	done chan struct{}
	res  *loop.Result
	err  error

	mu  sync.Mutex
	cur Happened
	// failed counts the current iteration's failures already met.
	failed int
	// actions are the retry layer's actions of the last step (see
	// RetryResult.Actions).
	actions []string
	// models are the main requests of the current iteration, as
	// requestShape writes them.
	models []string
	// compacts are the last step's auto-compactions (see
	// autoCompactShape).
	compacts []string
	// compactCounts are the token counts those auto-compactions saw.
	compactCounts []int
	// hookActive records the stop_hook_active flag the hooks were given.
	hookActive []bool
	nextID     int
}

// watchdog bounds every wait on the loop, so a loop that waits for a
// seam the test did not expect fails the test instead of hanging it.
const watchdog = 10 * time.Second

// startDriver starts a run of policy p with a token budget, and with a
// fallback model when fallback is set.
func startDriver(p loop.Policy, budget int, fallback bool) *driver {
	ctx, cancel := context.WithCancel(context.Background())
	d := &driver{cancel: cancel, happen: make(chan Happened), events: make(chan loop.Event, 64), done: make(chan struct{})}
	cfg := loop.Config{
		Policy:         p,
		Model:          (*driverModel)(d),
		Primary:        loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000},
		ToolNames:      ToolNames(),
		Tools:          (*driverTools)(d),
		StopHooks:      (*driverHooks)(d),
		Compactor:      (*driverCompactor)(d),
		Collapser:      (*driverCollapser)(d),
		TokenBudget:    budget,
		IterationLimit: -1,
		Observer:       d.observe,
	}
	if fallback {
		cfg.FallbackModel = loop.ModelInfo{Name: fallbackName, ContextWindow: 200_000, MaxOutputTokens: 64_000}
	}
	go func() {
		defer close(d.done)
		defer close(d.events)
		d.res, d.err = loop.Run(ctx, cfg, historyOf(6))
	}()
	return d
}

// observe forwards every event and, at an iteration_start, waits for
// the iteration's outcome.
func (d *driver) observe(e loop.Event) {
	d.events <- e
	if _, ok := e.(loop.IterationStart); ok {
		h, ok := <-d.happen
		if !ok {
			d.cancel()
			h = Happened{Reply: ReplyAborted}
		}
		d.mu.Lock()
		d.cur, d.failed, d.models = h, 0, nil
		d.mu.Unlock()
	}
}

// step plays one iteration meeting h and returns the loop's decision and
// the state fields its transition changed. It fails if the run ended.
func (d *driver) step(h Happened) (Decision, []loop.FieldChange, error) {
	select {
	case d.happen <- h:
	case <-d.done:
		return Decision{}, nil, fmt.Errorf("the run has ended")
	case <-time.After(watchdog):
		return Decision{}, nil, fmt.Errorf("the loop did not start an iteration within %v", watchdog)
	}
	d.actions, d.compacts, d.compactCounts = nil, nil, nil
	for {
		select {
		case e, ok := <-d.events:
			if !ok {
				return Decision{}, nil, fmt.Errorf("the run ended without a decision (err %v)", d.err)
			}
			switch x := e.(type) {
			case loop.Retry:
				switch {
				case x.NonStreaming:
					d.actions = append(d.actions, "non_streaming "+string(x.Reason))
				case x.StreamRetry:
					d.actions = append(d.actions, "stream_retry "+string(x.Reason))
				default:
					d.actions = append(d.actions, "retry "+string(x.Reason))
				}
			case loop.Fallback:
				d.actions = append(d.actions, "fallback")
			case loop.Compaction:
				if x.Trigger == loop.TriggerAuto {
					d.compacts = append(d.compacts, autoCompactShape(x))
					d.compactCounts = append(d.compactCounts, x.TokensBefore)
				}
			case loop.TransitionEvent:
				return Decision{Transition: x.Transition}, x.Changes, nil
			case loop.TerminalEvent:
				return Decision{Terminal: x.Terminal}, nil, nil
			}
		case <-time.After(watchdog):
			return Decision{}, nil, fmt.Errorf("the loop made no decision within %v", watchdog)
		}
	}
}

// stop ends the run (aborting the iteration it waits to start) and waits
// for it.
func (d *driver) stop() {
	close(d.happen)
	go func() {
		for range d.events {
		}
	}()
	<-d.done
	d.cancel()
}

func (d *driver) current() Happened {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cur
}

// driverModel answers main requests as the current outcome says.
type driverModel driver

func (m *driverModel) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	d := (*driver)(m)
	h := d.current()
	d.mu.Lock()
	d.nextID++
	id := "toolu_" + strconv.Itoa(d.nextID)
	d.models = append(d.models, requestShape(req.Model, req.NonStreaming, req.MaxTokens))
	var failure loop.ErrorKind
	if d.failed < len(h.Failures) {
		failure = h.Failures[d.failed]
		d.failed++
	}
	d.mu.Unlock()
	if failure != "" {
		// a failure before any content (an error event after content is
		// a stream-cut reply)
		return loop.Response{}, &loop.RequestError{Kind: failure, Status: failureStatus[failure], Message: string(failure)}
	}
	cut := func(b loop.Block) (loop.Response, error) {
		yield(b)
		return loop.Response{}, &loop.RequestError{Kind: loop.KindStream, Message: "error event after content"}
	}
	usage := loop.Usage{InputTokens: req.InputTokens, OutputTokens: h.Output}
	if h.Context > 0 {
		usage.InputTokens = h.Context - h.Output
	}
	reply := func(stop loop.StopReason, blocks ...loop.Block) (loop.Response, error) {
		for _, b := range blocks {
			yield(b)
		}
		return loop.Response{StopReason: stop, Usage: usage}, nil
	}
	text := loop.Block{Type: loop.BlockText, Text: "answer"}
	switch h.Reply {
	case ReplyText:
		return reply(loop.StopEndTurn, text)
	case ReplyToolUse:
		return reply(loop.StopToolUse, loop.Block{Type: loop.BlockToolUse, ID: id, Name: "Read", Input: "{}"})
	case ReplyTruncated:
		return reply(loop.StopMaxTokens, text)
	case ReplyTruncatedToolUse:
		return reply(loop.StopMaxTokens, loop.Block{Type: loop.BlockToolUse, ID: id, Name: "Read", Input: `{"pa`})
	case ReplyEmpty:
		return reply(loop.StopEndTurn)
	case ReplyMalformed:
		return reply(loop.StopToolUse, text)
	case ReplyPromptTooLong:
		return loop.Response{}, loop.PromptTooLongError(req.InputTokens, 1)
	case ReplyMedia:
		return loop.Response{}, &loop.RequestError{Kind: loop.KindMediaTooLarge, Status: 400, Message: "image too large"}
	case ReplyRequestTooLarge:
		return loop.Response{}, &loop.RequestError{Kind: loop.KindRequestTooLarge, Status: 413, Message: "request too large"}
	case ReplyImage:
		return loop.Response{}, &loop.RequestError{Kind: loop.KindImageSize, Message: "image size"}
	case ReplyAPIError:
		return loop.Response{}, &loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "overloaded"}
	case ReplyAborted:
		d.cancel()
		return loop.Response{}, ctx.Err()
	case ReplyStreamCut:
		return cut(text)
	case ReplyStreamCutToolUse:
		return cut(loop.Block{Type: loop.BlockToolUse, ID: id, Name: "Read", Input: "{}"})
	case ReplyStreamCutThinking:
		return cut(loop.Block{Type: loop.BlockThinking, Text: "thinking"})
	}
	return loop.Response{}, fmt.Errorf("driver: unknown reply %q", h.Reply)
}

// driverTools runs every call as the current outcome says.
type driverTools driver

func (t *driverTools) Run(ctx context.Context, call loop.ToolCall) (loop.ToolOutcome, error) {
	d := (*driver)(t)
	switch d.current().Tools {
	case ToolsAborted:
		d.cancel()
		return loop.ToolOutcome{}, ctx.Err()
	case ToolsPrevents:
		return loop.ToolOutcome{Content: "done", PreventContinuation: true}, nil
	}
	return loop.ToolOutcome{Content: "done"}, nil
}

// driverHooks returns the current outcome's verdict and records the
// stop_hook_active flag it was given.
type driverHooks driver

func (h *driverHooks) RunStopHooks(ctx context.Context, in loop.StopHookInput) (loop.StopHookResult, error) {
	d := (*driver)(h)
	d.mu.Lock()
	d.hookActive = append(d.hookActive, in.StopHookActive)
	d.mu.Unlock()
	switch d.current().Hook {
	case HookBlocks:
		return loop.StopHookResult{BlockingErrors: []string{"not yet"}}, nil
	case HookPrevents:
		return loop.StopHookResult{PreventContinuation: true, Reason: "stop"}, nil
	case HookFails:
		return loop.StopHookResult{}, fmt.Errorf("hook failed")
	}
	return loop.StopHookResult{}, nil
}

// driverCompactor succeeds or fails as the current outcome says, keeping
// all but the oldest message (so the conversation stays compactable).
type driverCompactor driver

func (c *driverCompactor) Compact(ctx context.Context, req loop.CompactRequest) (loop.CompactResult, error) {
	if !(*driver)(c).current().CompactOK {
		return loop.CompactResult{}, fmt.Errorf("compaction failed")
	}
	return loop.CompactResult{Summary: "<summary>s</summary>", Keep: len(req.Messages) - 1}, nil
}

// driverCollapser never stages; its drain commits (folding the oldest
// message) when the current outcome says so.
type driverCollapser driver

func (c *driverCollapser) Collapse(in loop.CollapseInput) loop.CollapseResult {
	return loop.CollapseResult{Messages: in.Messages, Staged: in.Staged}
}

func (c *driverCollapser) Drain(in loop.CollapseInput) loop.CollapseResult {
	if !(*driver)(c).current().DrainCommits || len(in.Messages) < 2 {
		return loop.CollapseResult{Messages: in.Messages, Staged: in.Staged}
	}
	d := (*driver)(c)
	d.mu.Lock()
	d.nextID++
	id := "collapse_" + strconv.Itoa(d.nextID)
	d.mu.Unlock()
	sum := loop.Message{ID: id, Role: loop.RoleUser, Meta: true, Blocks: []loop.Block{{Type: loop.BlockText, Text: "[collapsed]"}}}
	msgs := append([]loop.Message{sum}, in.Messages[1:]...)
	return loop.CollapseResult{Messages: msgs, Committed: 1, Removed: []string{in.Messages[0].ID}}
}

// failureStatus is the HTTP status the driver sends with each failure.
var failureStatus = map[loop.ErrorKind]int{
	loop.KindRateLimited: 429, loop.KindServer: 500, loop.KindOverloaded: 529,
	loop.KindInvalidRequest: 400, loop.KindFallbackTriggered: 529,
}

// requestModels is the current iteration's main requests, as
// requestShape writes them.
func (d *driver) requestModels() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.models...)
}

// requestShape writes a request's model, streaming and output cap.
func requestShape(model string, nonStreaming bool, maxTokens int) string {
	if nonStreaming {
		model += " non-streaming"
	}
	return model + " max_tokens " + strconv.Itoa(maxTokens)
}

// autoCompactShape writes an auto-compaction as the state machine
// compares it: a skip and its reason, a success and the rapid-refill
// count, a failure and the failure count.
func autoCompactShape(c loop.Compaction) string {
	switch {
	case c.Skipped != "":
		return "skipped " + c.Skipped
	case c.OK:
		return CompactOK + " rapid_refills=" + strconv.Itoa(c.RapidRefill)
	}
	return CompactFailed + " failures=" + strconv.Itoa(c.Failures)
}
