package fakemodel

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// Seeds seed the random streams of one [Episode]. Keeping the workload's
// draws apart from the faults' means a change of fault rates leaves the
// session itself (its length, its replies' sizes) as it was for as long
// as the two runs stay in step.
type Seeds struct {
	// Workload seeds the session: its plan and every size.
	Workload uint64
	// Faults seeds the injected faults (and, in swarm mode, their
	// probabilities).
	Faults uint64
	// Session seeds the draw of the session's parameters from the
	// workload's [Population] (nothing is drawn from it while the
	// population has no spread). Episodes given the same Session seed are
	// sessions of one user.
	Session uint64
}

// PCG stream constants of the episode's two streams.
const (
	workloadStream   = 0x776f726b6c6f6164 // "workload"
	faultStream      = 0x6661756c74730000 // "faults"
	populationStream = 0x73657373696f6e00 // "session"
)

// Episode is one session drawn from a [Workload]: a [loop.Model], a
// [loop.Tools] and a [loop.StopHooks] that answer the loop from the
// episode's seeded streams. It models an agent working through a plan of
// tool-calling replies and then answering; what the loop does to the
// conversation (dropping a truncated reply, nudging, compacting, feeding
// back a stop hook) changes what the agent does next.
//
// The loop calls an Episode from one goroutine at a time; it does not
// implement [loop.ConcurrencySafe], so tools run one by one and draw from
// the stream in block order. An Episode is not safe for concurrent use.
type Episode struct {
	w      Workload
	faults Faults
	window int
	cancel context.CancelFunc
	work   *rand.Rand
	fault  *rand.Rand

	start   int
	replies int // replies planned at the start (for the abort point)

	// prog is the agent's progress; saved is prog before the last reply,
	// restored when the loop drops that reply and asks again.
	prog, saved progress
	// answered is the ID of the last message of the request that got the
	// last reply: the same request again means the reply was dropped.
	answered string

	attempts   int            // main replies produced, counting dropped ones
	abortAt    int            // the reply during or after which the user aborts; 0 never
	abortTools bool           // the abort comes while that reply's tools run
	abortNow   bool           // the tools of the current reply abort
	lastFault  loop.ErrorKind // the fault of the last failed attempt, if it failed
	media      string         // the tool_use whose result carries an oversized image
	toolIDs    int

	summary    string // ID of the last compaction summary seen in a request
	cacheFirst string // first message ID of the last successful request
	cacheInput int    // its input tokens
}

// progress is where the agent is in its session.
type progress struct {
	// plan is how many tool-calling replies are left before the answer.
	plan int
	// intended is the length of the reply being written (0: none yet);
	// written is how much of it the history already holds.
	intended, written int
}

var (
	_ loop.Model     = (*Episode)(nil)
	_ loop.Tools     = (*Episode)(nil)
	_ loop.StopHooks = (*Episode)(nil)
)

// Episode draws one session from w, for a model whose context window is
// window. cancel must cancel the context the loop runs with: the episode
// calls it when the user aborts. w must be valid ([Workload.Validate]).
// A workload with a [Population] spread first draws the session's own
// parameters from s.Session's stream; the episode's other streams are
// drawn from as without one.
func (w Workload) Episode(s Seeds, window int, cancel context.CancelFunc) *Episode {
	if w.Population.Spread() {
		w = w.Session(rand.New(rand.NewPCG(s.Session, populationStream)))
	}
	e := &Episode{
		w:      w,
		faults: w.Faults,
		window: window,
		cancel: cancel,
		work:   rand.New(rand.NewPCG(s.Workload, workloadStream)),
		fault:  rand.New(rand.NewPCG(s.Faults, faultStream)),
	}
	e.start = w.StartContext.Draw(e.work)
	e.replies = w.Replies.Draw(e.work)
	e.prog.plan = e.replies - 1
	if w.Swarm {
		e.faults = w.Faults.Swarm(e.fault)
	}
	if e.fault.Float64() < e.faults.Abort {
		e.abortAt = 1 + e.fault.IntN(e.replies)
		e.abortTools = e.fault.IntN(2) == 0
	}
	return e
}

// Initial is the starting history: one user message of the drawn
// starting size.
func (e *Episode) Initial() []loop.Message {
	return []loop.Message{{Role: loop.RoleUser, Tokens: e.start,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: "Implement the next issue of the project; run the tests."}}}}
}

// Stream implements [loop.Model].
func (e *Episode) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	if req.InputTokens >= e.window {
		return loop.Response{}, loop.PromptTooLongError(req.InputTokens, e.window)
	}
	cut, fault := e.apiFault()
	if fault != nil && (!cut || req.NonStreaming) {
		// a non-streaming answer comes whole or not at all
		return loop.Response{}, fault
	}
	if cut {
		return e.cut(ctx, req, yield)
	}
	return e.answer(ctx, req, yield)
}

// answer answers a request no API fault failed.
func (e *Episode) answer(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	if req.Purpose == loop.PurposeCompact {
		return e.summarise(req, yield), nil
	}
	if e.media != "" {
		if carries(req.Messages, e.media) {
			return loop.Response{}, &loop.RequestError{Kind: loop.KindRequestTooLarge, Status: loop.KindRequestTooLarge.Status(),
				Message: "request too large: an image in the conversation exceeds the size limit"}
		}
		e.media = ""
	}
	return e.reply(ctx, req, yield)
}

// cut answers a request whose stream an error event cuts after content
// ([Faults.StreamErrorAfterContent]): the answer is drawn as usual, then
// only its first blocks stream, from one to all of them (drawn from the
// fault stream), and the error event ends the stream. A main reply
// that was cut did not happen for the agent: its progress is as before
// it, so it writes the reply again (and its tools, which do not run,
// are not aborted). An answer with no blocks is cut before content.
func (e *Episode) cut(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	var blocks []loop.Block
	_, err := e.answer(ctx, req, func(b loop.Block) { blocks = append(blocks, b) })
	if err != nil {
		// the request failed otherwise (413) or the user aborted
		for _, b := range blocks {
			yield(b)
		}
		return loop.Response{}, err
	}
	if req.Purpose == loop.PurposeMain {
		e.prog = e.saved
		e.abortNow = false
	}
	n := 0
	if len(blocks) > 0 {
		n = 1 + e.fault.IntN(len(blocks))
	}
	for _, b := range blocks[:n] {
		yield(b)
	}
	return loop.Response{}, &loop.RequestError{Kind: loop.KindStream, Message: "injected stream_error after " + blocksText(n)}
}

// apiFault draws the fault of one attempt, if any: the previous
// attempt's fault again with probability Persist, else each kind with
// its rate. cut is set for a stream error that comes after content
// ([Faults.StreamErrorAfterContent]; nothing more is drawn while that
// share is 0).
func (e *Episode) apiFault() (cut bool, err error) {
	f := &e.faults
	if e.lastFault != "" && e.fault.Float64() < f.Persist {
		return e.afterContent(e.lastFault), apiError(e.lastFault)
	}
	u := e.fault.Float64()
	for _, k := range []struct {
		kind loop.ErrorKind
		p    float64
	}{
		{loop.KindOverloaded, f.Overloaded}, {loop.KindRateLimited, f.RateLimited}, {loop.KindServer, f.ServerError},
		{loop.KindConnection, f.Connection}, {loop.KindStream, f.StreamError}, {loop.KindInvalidRequest, f.InvalidRequest},
	} {
		if u < k.p {
			e.lastFault = k.kind
			return e.afterContent(k.kind), apiError(k.kind)
		}
		u -= k.p
	}
	e.lastFault = ""
	return false, nil
}

// afterContent draws whether a fault of kind k is a stream error that
// comes after content.
func (e *Episode) afterContent(k loop.ErrorKind) bool {
	p := e.faults.StreamErrorAfterContent
	return k == loop.KindStream && p > 0 && e.fault.Float64() < p
}

// apiError is the error the API returns for a fault of kind k.
func apiError(k loop.ErrorKind) error {
	return &loop.RequestError{Kind: k, Status: k.Status(), Message: "injected " + string(k)}
}

// reply answers a main request: the next part of the agent's session.
func (e *Episode) reply(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	last := ""
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1].ID
	}
	if last == e.answered {
		e.prog = e.saved // the loop dropped the last reply and asks again
	} else if n := len(req.Messages); n > 0 && strings.HasPrefix(req.Messages[n-1].Text(), loop.StopHookFeedbackPrefix) {
		e.prog.plan += e.w.AfterBlock.Draw(e.work)
	}
	if last != e.answered {
		e.rework(req.Messages)
	}
	e.saved, e.answered = e.prog, last
	e.attempts++

	if e.attempts == e.abortAt && (!e.abortTools || e.prog.plan == 0) {
		yield(loop.Block{Type: loop.BlockText, Text: "Let me"})
		e.cancel()
		return loop.Response{}, ctx.Err()
	}
	if e.fault.Float64() < e.faults.EmptyReply {
		return loop.Response{StopReason: loop.StopEndTurn, Usage: e.usage(req, 0)}, nil
	}
	p := &e.prog
	if p.intended == 0 {
		p.intended = e.w.Output.Draw(e.work)
	}
	limit := min(req.MaxTokens, e.window-req.InputTokens)
	out := p.intended - p.written
	if out > limit {
		p.written += limit
		yield(loop.Block{Type: loop.BlockText, Text: "Here is the whole file, rewritten:"})
		return loop.Response{StopReason: loop.StopMaxTokens, Usage: e.usage(req, limit)}, nil
	}
	if p.plan > 0 && e.fault.Float64() < e.faults.MalformedToolUse {
		yield(loop.Block{Type: loop.BlockText, Text: "I'll run the tests."})
		return loop.Response{StopReason: loop.StopToolUse, Usage: e.usage(req, out)}, nil
	}
	p.intended, p.written = 0, 0
	if p.plan == 0 {
		yield(loop.Block{Type: loop.BlockText, Text: "Done: the change is in and the tests pass."})
		return loop.Response{StopReason: loop.StopEndTurn, Usage: e.usage(req, out)}, nil
	}
	p.plan--
	e.abortNow = e.attempts == e.abortAt
	yield(loop.Block{Type: loop.BlockText, Text: "Let me check."})
	for range e.w.Tools.Draw(e.work) {
		t := tools[e.work.IntN(len(tools))]
		e.toolIDs++
		yield(loop.Block{Type: loop.BlockToolUse, ID: "toolu_" + strconv.Itoa(e.toolIDs), Name: t.name, Input: t.input})
	}
	return loop.Response{StopReason: loop.StopToolUse, Usage: e.usage(req, out)}, nil
}

// tools are the tools the agent calls, with a typical input and result
// text each (the result's size is drawn separately).
var tools = []struct{ name, input, result string }{
	{"Read", `{"file_path":"loop/loop.go"}`, "Read ok"},
	{"Grep", `{"pattern":"func Run"}`, "Grep ok"},
	{"Edit", `{"file_path":"loop/loop.go","old_string":"a","new_string":"b"}`, "Edit ok"},
	{"Bash", `{"command":"go test ./..."}`, "Bash ok"},
}

// toolResult is the result text of the named tool.
func toolResult(name string) string {
	for _, t := range tools {
		if t.name == name {
			return t.result
		}
	}
	return name + " ok"
}

// summarise answers a compaction request with a summary of the drawn
// size, cut at the output cap.
func (e *Episode) summarise(req loop.Request, yield func(loop.Block)) loop.Response {
	out := e.w.Summary.Draw(e.work)
	stop := loop.StopEndTurn
	if limit := min(req.MaxTokens, e.window-req.InputTokens); out > limit {
		out, stop = limit, loop.StopMaxTokens
	}
	yield(loop.Block{Type: loop.BlockText, Text: "<summary>The task, the files read and changed, the test results and what is left.</summary>"})
	return loop.Response{StopReason: stop, Usage: e.usage(req, out)}
}

// usage is the usage of a successful request: the prefix it shares with
// the previous request is read from the prompt cache, the rest written to
// it.
func (e *Episode) usage(req loop.Request, output int) loop.Usage {
	first := ""
	if len(req.Messages) > 0 {
		first = req.Messages[0].ID
	}
	read := 0
	if first == e.cacheFirst {
		read = min(e.cacheInput, req.InputTokens)
	}
	e.cacheFirst, e.cacheInput = first, req.InputTokens
	return loop.Usage{CacheReadInputTokens: read, CacheCreationInputTokens: req.InputTokens - read, OutputTokens: output}
}

// carries reports whether msgs hold the result of tool_use id.
func carries(msgs []loop.Message, id string) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, b := range msgs[i].Blocks {
			if b.Type == loop.BlockToolResult && b.ToolUseID == id {
				return true
			}
		}
	}
	return false
}

// Run implements [loop.Tools]: a result of the drawn size, or the abort.
func (e *Episode) Run(ctx context.Context, call loop.ToolCall) (loop.ToolOutcome, error) {
	if e.abortNow {
		e.abortNow = false
		e.cancel()
		return loop.ToolOutcome{}, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return loop.ToolOutcome{}, err
	}
	o := loop.ToolOutcome{Content: toolResult(call.Name), Tokens: e.w.ToolResult.Draw(e.work)}
	if e.media == "" && e.fault.Float64() < e.faults.MediaTooLarge {
		e.media = call.ID
	}
	o.PreventContinuation = e.fault.Float64() < e.faults.ToolHookStop
	return o, nil
}

// RunStopHooks implements [loop.StopHooks]: a first answer is blocked
// with probability StopHookBlock, an answer after a block with
// StopHookRepeat.
func (e *Episode) RunStopHooks(ctx context.Context, in loop.StopHookInput) (loop.StopHookResult, error) {
	if err := ctx.Err(); err != nil {
		return loop.StopHookResult{}, err
	}
	if e.fault.Float64() < e.faults.StopHookPrevent {
		return loop.StopHookResult{PreventContinuation: true, Reason: "a stop hook ended the session"}, nil
	}
	p := e.faults.StopHookBlock
	if in.StopHookActive {
		p = e.faults.StopHookRepeat
	}
	if e.fault.Float64() < p {
		return loop.StopHookResult{BlockingErrors: []string{"tests still fail: run go test ./... and fix them"}}, nil
	}
	return loop.StopHookResult{}, nil
}

// rework adds the replies that redo lost work when a request carries a
// compaction summary not seen before (the loop compacted since the last
// reply).
func (e *Episode) rework(msgs []loop.Message) {
	r := e.w.CompactionRework
	if r.Min == 0 && !(r.Mean > 0) {
		return
	}
	for _, m := range msgs[:min(len(msgs), 3)] {
		if m.CompactSummary && m.ID != e.summary {
			e.summary = m.ID
			e.prog.plan += r.Draw(e.work)
			return
		}
	}
}
