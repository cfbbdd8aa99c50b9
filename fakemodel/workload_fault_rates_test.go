package fakemodel

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// TestAPIFaultRates: each API fault fails an attempt with its own
// probability, and a failed attempt is followed by the same failure with
// probability Persist (else the rates apply again). The tolerance is five
// standard deviations of a binomial count.
func TestAPIFaultRates(t *testing.T) {
	w := calm(3)
	w.Faults = Faults{Overloaded: 0.1, RateLimited: 0.05, ServerError: 0.1, Connection: 0.15, StreamError: 0.05, InvalidRequest: 0.05}
	rates := map[loop.ErrorKind]float64{loop.KindOverloaded: 0.1, loop.KindRateLimited: 0.05, loop.KindServer: 0.1,
		loop.KindConnection: 0.15, loop.KindStream: 0.05, loop.KindInvalidRequest: 0.05}
	within := func(what string, p float64, hits, n int) {
		t.Helper()
		sd := math.Sqrt(float64(n) * p * (1 - p))
		assert.InDelta(t, p*float64(n), float64(hits), 5*sd, "%s: %d in %d, want about %.0f", what, hits, n, p*float64(n))
	}
	attempt := func(e *Episode) loop.ErrorKind {
		_, err := e.Stream(context.Background(), loop.Request{Purpose: loop.PurposeCompact, MaxTokens: 64_000, InputTokens: 1_000,
			Messages: withIDs("a")}, func(loop.Block) {})
		var re *loop.RequestError
		if errors.As(err, &re) {
			return re.Kind
		}
		require.NoError(t, err)
		return ""
	}

	e := w.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	const n = 20_000
	count := map[loop.ErrorKind]int{}
	for range n {
		count[attempt(e)]++
	}
	for k, p := range rates {
		within(string(k), p, count[k], n)
	}

	w.Faults = Faults{Overloaded: 0.1, Persist: 0.5}
	e = w.Episode(Seeds{Workload: 3, Faults: 4}, 200_000, func() {})
	var afterFault, again, afterOK, fail int
	prev := attempt(e)
	for range n {
		k := attempt(e)
		if prev != "" {
			afterFault++
			if k == prev {
				again++
			}
		} else {
			afterOK++
			if k != "" {
				fail++
			}
		}
		prev = k
	}
	within("a fault after a fault", 0.5+0.5*0.1, again, afterFault)
	within("a fault after a success", 0.1, fail, afterOK)
}

// TestEveryAbortedEpisodeAborts: with Abort 1 every episode is aborted by
// the user, at a reply drawn uniformly from its plan, while the model
// streams (half the time, and always when the reply is the answer, which
// runs no tools) or while the tools run.
func TestEveryAbortedEpisodeAborts(t *testing.T) {
	const replies, n = 10, 200
	w := calm(replies)
	w.Faults.Abort = 1
	streaming, requests := 0, 0
	for s := range uint64(n) {
		res := runEpisode(t, w, loop.ClaudeCode(), Seeds{Workload: s, Faults: s})
		require.Contains(t, []loop.Terminal{loop.AbortedStreaming, loop.AbortedTools}, res.Terminal, "seed %d", s)
		if res.Terminal == loop.AbortedStreaming {
			streaming++
		}
		requests += len(res.Trace.Requests())
	}
	// the reply is uniform on 1..10: mean 5.5, variance 99/12
	assert.InDelta(t, 5.5, float64(requests)/n, 5*math.Sqrt(99.0/12/n), "the mean reply the abort comes at")
	p := 0.5 + 0.5/replies
	assert.InDelta(t, p*n, float64(streaming), 5*math.Sqrt(n*p*(1-p)), "aborts while streaming")

	// while streaming, the model has started its reply
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	one := calm(1)
	one.Faults.Abort = 1
	e := one.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, cancel)
	var blocks []loop.Block
	_, err := e.Stream(ctx, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 8_000, InputTokens: 30_000, Messages: withIDs("a")},
		func(b loop.Block) { blocks = append(blocks, b) })
	require.ErrorIs(t, err, context.Canceled)
	require.Error(t, ctx.Err(), "the episode cancelled the run")
	if assert.Len(t, blocks, 1, "the reply cut by the abort") {
		assert.Equal(t, loop.BlockText, blocks[0].Type)
		assert.NotEmpty(t, blocks[0].Text)
	}
}

// TestOversizedMediaFailsWhileCarried: once a tool result carries an
// oversized image, every main request holding that result fails 413,
// wherever it sits in the history; a request without it gets through, and
// the image is gone for good.
func TestOversizedMediaFailsWhileCarried(t *testing.T) {
	w := calm(5)
	w.Faults.MediaTooLarge = 1
	e := w.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	_, err := e.Run(context.Background(), loop.ToolCall{ID: "toolu_1", Name: "Read", Input: "{}"})
	require.NoError(t, err)
	result := func(id string) loop.Message {
		return loop.Message{ID: "r_" + id, Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: id, Text: "Read ok"}}}
	}
	ask := func(msgs ...loop.Message) error {
		_, err := e.Stream(context.Background(), loop.Request{Purpose: loop.PurposeMain, MaxTokens: 8_000, InputTokens: 30_000, Messages: msgs},
			func(loop.Block) {})
		return err
	}
	for _, msgs := range [][]loop.Message{
		{withIDs("a")[0], result("toolu_1")},
		{result("toolu_1"), withIDs("b")[0]},
		{result("toolu_0"), result("toolu_1")},
	} {
		var re *loop.RequestError
		if assert.ErrorAs(t, ask(msgs...), &re, "a request carrying the image") {
			assert.Equal(t, loop.KindRequestTooLarge, re.Kind)
			assert.Equal(t, 413, re.Status)
		}
	}
	assert.NoError(t, ask(withIDs("c")[0], result("toolu_0")), "a request carrying another tool's result")
	assert.NoError(t, ask(withIDs("c")[0], result("toolu_1")), "the image was dropped once: it does not come back")
}
