package loop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// caller is the layer between the loop and the model seam: it sends a
// request, records it in the trace, validates the response, and retries
// as the policy says, with simulated back-off drawn from the run's seeded
// stream (never slept).
type caller struct {
	r *run
	// rng is the jitter stream, made from seed at the first draw: most
	// runs never retry.
	rng  *rand.Rand
	seed uint64
	// blocks collects what the model yields during one call; yield, made
	// once per run, appends to it. A call collects them straight into the
	// run's block chunks, where the reply's message keeps them.
	blocks []Block
	yield  func(Block)
	// toolUseIDs are the tool_use ids of the last successful response, as
	// its event lists them (shared with the tool batch event).
	toolUseIDs []string
	// cut: the last send ended with a streaming attempt cut by an error
	// event after content, which the policy leaves to the loop
	// (StreamErrorRecovery) instead of the non-streaming attempt.
	cut bool
	// draws counts the draws taken from rng (Config.OnModelCall).
	draws int
}

func newCaller(r *run, seed uint64) *caller {
	c := &caller{r: r, seed: seed}
	c.yield = func(b Block) { c.blocks = append(c.blocks, b) }
	return c
}

// fallbackError is returned by send when the retry layer decides to
// switch to the fallback model; it says what triggered it.
func fallbackError(cause *RequestError, overloads int) *RequestError {
	why := fmt.Sprintf("%d consecutive overloaded (529) responses", overloads)
	if cause.Kind == KindServer {
		why = fmt.Sprintf("a server error (%d)", cause.Status)
	}
	return &RequestError{Kind: KindFallbackTriggered, Status: cause.Status, Message: "fallback triggered by " + why}
}

// send streams req, retrying per policy. It returns the blocks of the
// last attempt (also on failure, for the tool_uses received before it).
func (c *caller) send(ctx context.Context, req Request) ([]Block, Response, error) {
	p := c.r.p
	fallbackReady := p.Fallback && c.r.cfg.FallbackModel.Name != "" && !c.r.fellBack && req.Purpose == PurposeMain
	retries, overloads, resends, thinkingResends, streamRetries := 0, 0, 0, 0, 0
	c.cut = false
	for attempt := 1; ; attempt++ {
		c.modelCall(req, attempt, [5]int{retries, overloads, resends, thinkingResends, streamRetries})
		blocks, resp, err := c.once(ctx, req, attempt)
		if err == nil || ctx.Err() != nil {
			return blocks, resp, err
		}
		re := asRequestError(err)
		if re == nil {
			return blocks, resp, err
		}
		if re.Kind == KindOverloaded {
			overloads++
		} else {
			overloads = 0
		}
		if fallbackReady && ((re.Kind == KindOverloaded && p.FallbackAfter529s > 0 && overloads >= p.FallbackAfter529s) ||
			(re.Kind == KindServer && p.FallbackOn500)) {
			return blocks, resp, fallbackError(re, overloads)
		}
		budget := p.APIRetries
		if req.NonStreaming && !p.NonStreamingRetriesFromAPI {
			budget = p.NonStreamingRetries
		}
		switch {
		case re.Kind == KindOverloaded && req.Purpose == PurposeMain && !fallbackReady &&
			p.OverloadedGiveUpAfter > 0 && overloads >= p.OverloadedGiveUpAfter:
			return blocks, resp, err
		case retryable(re.Kind) && !(re.Kind == KindRateLimited && p.RateLimitedStreamRetryOnly) && retries < budget:
			retries++
			delay := c.backoff(retries, re.RetryAfterMS)
			c.r.stats.RetryDelayMS += delay
			emit(c.r, Retry{Attempt: attempt + 1, Reason: re.Kind, DelayMS: delay})
			continue
		case re.Kind == KindStream && p.StreamErrorRecovery && !req.NonStreaming && len(blocks) > 0:
			// cut after content: not the non-streaming attempt (a
			// compaction call fails with it)
			if onlyThinking(blocks) && thinkingResends < p.StreamErrorThinkingResends {
				thinkingResends++
				emit(c.r, Retry{Attempt: attempt + 1, Reason: re.Kind})
				continue
			}
			c.cut = true
			return blocks, resp, err
		case (re.Kind == KindStream || re.Kind == KindConnection && (p.NonStreamingOnDrop || p.NonStreamingOnMidStreamDrop && re.Status == StatusStreamBegun)) &&
			p.NonStreamingFallback && !req.NonStreaming:
			req.NonStreaming = true
			if p.NonStreamingRetriesFromAPI {
				retries++ // the switch spends a retry of the one budget
			} else {
				retries = 0
			}
			req.MaxTokens = min(req.MaxTokens, p.NonStreamingMaxTokens)
			emit(c.r, Retry{Attempt: attempt + 1, Reason: re.Kind, NonStreaming: true})
			continue
		case re.Kind == KindInvalidRequest && req.Purpose == PurposeMain && resends < p.InvalidRequestResends:
			resends++
			emit(c.r, Retry{Attempt: attempt + 1, Reason: re.Kind})
			continue
		}
		if c.streamRetry(re, attempt, &streamRetries) {
			retries = 0
			continue
		}
		return blocks, resp, err
	}
}

// streamRetry is the outer retry layer (Policy.StreamRetries, docs/spec.md
// §7.7): a failure the layer above did not take is sent again from the
// start, after a back-off of its own (retry-after honoured as above),
// with a fresh API retry budget. It reports whether it sends again.
func (c *caller) streamRetry(re *RequestError, attempt int, n *int) bool {
	p := c.r.p
	if *n >= p.StreamRetries || !streamRetryable(re.Kind) {
		return false
	}
	*n++
	delay := c.backoff(*n, re.RetryAfterMS)
	c.r.stats.RetryDelayMS += delay
	emit(c.r, Retry{Attempt: attempt + 1, Reason: re.Kind, DelayMS: delay, StreamRetry: true})
	return true
}

// streamRetryable kinds are retried by the outer layer: every failure
// but a 400 (prompt too long or another invalid request), an overload,
// a media error and a fallback switch.
func streamRetryable(k ErrorKind) bool {
	switch k {
	case KindServer, KindConnection, KindRateLimited, KindStream, KindRequestTooLarge, KindOther:
		return true
	}
	return false
}

// retryable kinds are retried with back-off: 429, 500, 529 and dropped
// connections.
func retryable(k ErrorKind) bool {
	return k == KindRateLimited || k == KindServer || k == KindOverloaded || k == KindConnection
}

// backoff is the simulated delay before retry k (1-based), in ms.
func (c *caller) backoff(k, retryAfterMS int) int {
	p := c.r.p
	if c.rng == nil {
		c.rng = rand.New(rand.NewPCG(c.seed, 0x6c6f6f7073696d))
	}
	factor := 1 + c.rng.Float64()*p.BackoffJitter
	c.draws++
	if retryAfterMS > 0 && p.HonorRetryAfter {
		return int(float64(retryAfterMS) * factor)
	}
	base := 0
	switch {
	case p.BackoffBaseMS == 0:
		// min(0 x 2^(k-1), max) is 0 for every k
	case k-1 < 31:
		base = min(p.BackoffBaseMS<<(k-1), p.BackoffMaxMS)
	default:
		// a positive base times 2^31 is above any BackoffMaxMS
		base = p.BackoffMaxMS
	}
	return int(float64(base) * factor)
}

// stream calls the model, collecting the blocks it yields, and turns a
// panic into an error. With a context that can be cancelled the call runs
// in its own goroutine, so that a Model ignoring cancellation cannot hang
// the run: once ctx is done Run waits Config.CancelGrace for Stream to
// return, then abandons the call with a [*StuckError]. With
// Config.InlineModelCalls the call runs on Run's goroutine whatever ctx.
func (c *caller) stream(ctx context.Context, req Request) (blocks []Block, resp Response, err error) {
	if ctx.Done() == nil || c.r.cfg.InlineModelCalls {
		defer func() {
			if v := recover(); v != nil {
				err = panicError("model", v)
			}
			// the blocks are kept (the reply's message holds them)
			blocks = c.r.blockLists.keep(c.blocks)
			c.blocks = nil
		}()
		c.blocks = c.r.blockLists.spare(4)
		resp, err = c.r.cfg.Model.Stream(ctx, req, c.yield)
		return
	}
	col := &collector{blocks: make([]Block, 0, 3)}
	// the goroutine writes gResp and gErr; they are read only once done
	// is closed
	var gResp Response
	var gErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				gResp, gErr = Response{}, panicError("model", v)
			}
		}()
		gResp, gErr = c.r.cfg.Model.Stream(ctx, req, col.yield)
	}()
	select {
	case <-done:
		return col.blocks, gResp, gErr
	case <-ctx.Done():
	}
	grace := c.r.cfg.CancelGrace
	if grace == 0 {
		grace = DefaultCancelGrace
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
		return col.blocks, gResp, gErr
	case <-timer.C:
		stuck := &StuckError{Seam: "model", Call: "Stream", Grace: grace}
		c.r.stuck = stuck
		return col.abandon(), Response{}, stuck
	}
}

// collector gathers the blocks a model yields from its own goroutine.
// Once abandoned it drops whatever a stuck model still yields.
type collector struct {
	mu        sync.Mutex
	blocks    []Block
	abandoned bool
}

func (col *collector) yield(b Block) {
	col.mu.Lock()
	if !col.abandoned {
		col.blocks = append(col.blocks, b)
	}
	col.mu.Unlock()
}

// abandon stops collecting and returns what was collected.
func (col *collector) abandon() []Block {
	col.mu.Lock()
	defer col.mu.Unlock()
	col.abandoned = true
	return col.blocks
}

// StuckError is a seam that did not return within the grace period after
// the run's context was done: it ignores cancellation, against its
// contract. Run abandons the call and returns this error.
type StuckError struct {
	// Seam names the seam ("model").
	Seam string
	// Call is the method that did not return.
	Call string
	// Grace is how long Run waited.
	Grace time.Duration
}

// Error implements error.
func (e *StuckError) Error() string {
	return fmt.Sprintf("%s seam: %s did not return within %s after the run's context was done (it must return promptly once its context is cancelled)",
		e.Seam, e.Call, e.Grace)
}

// once sends one attempt, recording it.
func (c *caller) once(ctx context.Context, req Request, attempt int) (blocks []Block, resp Response, err error) {
	r := c.r
	r.stats.Requests++
	r.stats.PeakTokens = max(r.stats.PeakTokens, req.InputTokens)
	last := ""
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1].Kind()
	}
	emit(r, RequestEvent{Purpose: req.Purpose, Model: req.Model, InputTokens: req.InputTokens, MaxTokens: req.MaxTokens,
		Messages: len(req.Messages), Last: last, Attempt: attempt, NonStreaming: req.NonStreaming})
	blocks, resp, err = c.stream(ctx, req)
	if re := asRequestError(err); re != nil && re.Kind == KindStream {
		blocks = finishedBlocks(blocks)
	}
	if err == nil && ctx.Err() == nil {
		if err = r.checkResponse(blocks, resp); err != nil {
			// a response no API would send is rejected whole
			blocks = nil
		}
	}
	if re := asRequestError(err); re != nil && (re.RetryAfterMS < 0 || re.RetryAfterMS > MaxRetryAfterMS) {
		// so is an error no API would send: a harness fault
		err = fmt.Errorf("model error %q: retry_after_ms %d is outside 0..%d (MaxRetryAfterMS)", re.Error(), re.RetryAfterMS, MaxRetryAfterMS)
	}
	if err != nil {
		r.stats.FailedInputTokens += req.InputTokens
		ev := RequestFailed{Purpose: req.Purpose, Kind: KindException, Blocks: len(blocks)}
		re := asRequestError(err)
		if re != nil {
			ev.Kind, ev.Status, ev.Message = re.Kind, re.Status, re.Message
		}
		switch {
		case ctx.Err() != nil:
			ev.Kind, ev.Message = KindAborted, ctx.Err().Error()
		case re == nil:
			// worded only when the error is not the model's own
			ev.Message = err.Error()
		}
		emit(r, ev)
		return blocks, resp, err
	}
	r.stats.InputTokens += resp.Usage.InputTokens + resp.Usage.CacheReadInputTokens + resp.Usage.CacheCreationInputTokens
	r.stats.OutputTokens += resp.Usage.OutputTokens
	ev := ResponseEvent{Purpose: req.Purpose, StopReason: resp.StopReason, Usage: resp.Usage, Blocks: len(blocks)}
	n := 0
	for bi := range blocks {
		b := &blocks[bi]
		if b.Type == BlockToolUse {
			n++
		}
	}
	if n > 0 {
		ev.ToolUses = r.idLists.cut(n)[:0]
		for bi := range blocks {
			b := &blocks[bi]
			if b.Type == BlockToolUse {
				ev.ToolUses = append(ev.ToolUses, b.ID)
			}
		}
	}
	emit(r, ev)
	c.toolUseIDs = ev.ToolUses
	return blocks, resp, nil
}

// checkResponse rejects a response no real API would send.
func (r *run) checkResponse(blocks []Block, resp Response) error {
	if err := checkUsage(resp.Usage); err != nil {
		return fmt.Errorf("response usage: %w", err)
	}
	switch resp.StopReason {
	case StopEndTurn, StopToolUse, StopMaxTokens:
	default:
		return fmt.Errorf("response stop_reason %q is not one of %s, %s, %s", resp.StopReason, StopEndTurn, StopToolUse, StopMaxTokens)
	}
	for i := range blocks {
		b := &blocks[i]
		if err := validateBlock(b); err != nil {
			return fmt.Errorf("response block %d: %w", i, err)
		}
		if b.Type == BlockToolResult {
			return fmt.Errorf("response block %d: the model sent a tool_result", i)
		}
		if b.Type == BlockToolUse {
			if r.toolUseIDs[b.ID] || repeatsEarlierID(blocks[:i], b.ID) {
				return fmt.Errorf("response block %d: tool_use id %q is not unique", i, b.ID)
			}
		}
	}
	return nil
}

// Call implements [Caller] for compactors.
func (c *caller) Call(ctx context.Context, req Request) (Reply, error) {
	blocks, resp, err := c.send(ctx, req)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Blocks: blocks, Response: resp}, nil
}

// repeatsEarlierID reports whether a tool_use among earlier has id.
func repeatsEarlierID(earlier []Block, id string) bool {
	for _, b := range earlier {
		if b.Type == BlockToolUse && b.ID == id {
			return true
		}
	}
	return false
}
