package fakemodel

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// streamOnce sends one request to e and returns what streamed and the
// error's kind ("" for none).
func streamOnce(t *testing.T, e *Episode, req loop.Request) ([]loop.Block, *loop.RequestError) {
	t.Helper()
	var blocks []loop.Block
	_, err := e.Stream(context.Background(), req, func(b loop.Block) { blocks = append(blocks, b) })
	if err == nil {
		return blocks, nil
	}
	var re *loop.RequestError
	require.ErrorAs(t, err, &re)
	return blocks, re
}

// TestStreamErrorAfterContentShare: of the stream errors, the share
// stream_error_after_content comes after one to all of the reply's
// blocks (each whole); the rest come before any content. With the share
// 0 no stream error carries content.
func TestStreamErrorAfterContentShare(t *testing.T) {
	for _, share := range []float64{0, 0.3, 1} {
		w := calm(1_000)
		w.Tools = Geometric{Min: 1, Mean: 3, Max: 8}
		w.Faults = Faults{StreamError: 1, StreamErrorAfterContent: share}
		e := w.Episode(Seeds{Workload: 5, Faults: 6}, 200_000, func() {})
		const n = 2_000
		withContent, sizes := 0, map[int]int{}
		for i := range n {
			req := loop.Request{Purpose: loop.PurposeMain, MaxTokens: 64_000, InputTokens: 30_000, Messages: withIDs("a")}
			blocks, re := streamOnce(t, e, req)
			require.NotNil(t, re, "attempt %d: every attempt fails", i)
			require.Equal(t, loop.KindStream, re.Kind, "attempt %d", i)
			if len(blocks) == 0 {
				continue
			}
			withContent++
			sizes[len(blocks)]++
			assert.Equal(t, loop.BlockText, blocks[0].Type, "a reply opens with its text")
			for _, b := range blocks[1:] {
				assert.Equal(t, loop.BlockToolUse, b.Type)
				var input map[string]any
				assert.NoError(t, json.Unmarshal([]byte(b.Input), &input), "a tool_use streams whole: %q", b.Input)
			}
			want := "1 content block"
			if len(blocks) > 1 {
				want = "content blocks"
			}
			assert.Contains(t, re.Message, want)
		}
		sd := math.Sqrt(n * share * (1 - share))
		assert.InDelta(t, share*n, float64(withContent), 5*sd+1e-9, "share %v: cuts after content in %d attempts", share, n)
		if share == 1 {
			assert.Greater(t, sizes[1], 0, "a cut after the first block")
			assert.Greater(t, len(sizes), 2, "cuts after several numbers of blocks: %v", sizes)
		}
	}
}

// A compaction request cut after content streams its summary, then
// fails.
func TestStreamErrorAfterContentCutsSummaries(t *testing.T) {
	w := calm(3)
	w.Faults = Faults{StreamError: 1, StreamErrorAfterContent: 1}
	e := w.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	blocks, re := streamOnce(t, e, loop.Request{Purpose: loop.PurposeCompact, MaxTokens: 20_000, InputTokens: 30_000, Messages: withIDs("a")})
	require.NotNil(t, re)
	assert.Equal(t, loop.KindStream, re.Kind)
	require.Len(t, blocks, 1)
	assert.Contains(t, blocks[0].Text, "<summary>")
}

// A non-streaming request has no stream to cut: its stream errors carry
// no content, whatever the share.
func TestStreamErrorAfterContentSparesNonStreaming(t *testing.T) {
	w := calm(3)
	w.Faults = Faults{StreamError: 1, StreamErrorAfterContent: 1}
	e := w.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	for i := range 50 {
		blocks, re := streamOnce(t, e, loop.Request{Purpose: loop.PurposeMain, NonStreaming: true, MaxTokens: 21_333, InputTokens: 30_000,
			Messages: withIDs("a")})
		require.NotNil(t, re, "attempt %d", i)
		assert.Equal(t, loop.KindStream, re.Kind)
		assert.Empty(t, blocks, "attempt %d", i)
	}
}

// The agent redoes a cut reply: a cut does not count as one of the
// session's tool-calling replies, so as many follow it as without the
// cut before the answer.
func TestStreamCutReplyIsWrittenAgain(t *testing.T) {
	const replies = 4
	w := calm(replies)
	w.Faults = Faults{StreamError: 1, StreamErrorAfterContent: 1}
	e := w.Episode(Seeds{Workload: 7, Faults: 8}, 200_000, func() {})
	ask := func(last string) ([]loop.Block, *loop.RequestError) {
		return streamOnce(t, e, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 64_000, InputTokens: 30_000, Messages: withIDs("a", last)})
	}
	blocks, re := ask("first")
	require.NotNil(t, re)
	require.NotEmpty(t, blocks)
	e.faults = Faults{} // no more faults from here on
	for i := range replies - 1 {
		blocks, re := ask("cut_note_" + strconv.Itoa(i))
		require.Nil(t, re)
		assert.Equal(t, loop.BlockToolUse, blocks[len(blocks)-1].Type, "reply %d after the cut calls tools", i+1)
	}
	blocks, re = ask("last")
	require.Nil(t, re)
	require.Len(t, blocks, 1)
	assert.Equal(t, loop.BlockText, blocks[0].Type, "the answer")
}

// With the share 0 a stream error draws nothing more from the fault
// stream than before the share existed: one number for the persistence
// of a failure, one for the fault, so seeded streams stay as they were.
func TestStreamErrorAfterContentZeroDrawsNothing(t *testing.T) {
	w := calm(3)
	w.Faults = Faults{StreamError: 0.5, Persist: 0.5}
	e := w.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	mirror := rand.New(rand.NewPCG(2, faultStream))
	mirror.Float64() // the episode's abort draw
	failed := false
	for i := range 500 {
		fails := failed && mirror.Float64() < 0.5
		if !fails {
			fails = mirror.Float64() < 0.5
		}
		_, re := streamOnce(t, e, loop.Request{Purpose: loop.PurposeCompact, MaxTokens: 20_000, InputTokens: 30_000, Messages: withIDs("a")})
		require.Equal(t, fails, re != nil, "attempt %d", i)
		failed = fails
	}
}

// TestStreamErrorAfterContentOfAnEmptyReply: a cut that falls on an
// empty reply has nothing to stream, so it comes before any content.
func TestStreamErrorAfterContentOfAnEmptyReply(t *testing.T) {
	w := calm(1_000)
	w.Faults = Faults{StreamError: 1, StreamErrorAfterContent: 1, EmptyReply: 1}
	e := w.Episode(Seeds{Workload: 5, Faults: 6}, 200_000, func() {})
	for i := range 20 {
		req := loop.Request{Purpose: loop.PurposeMain, MaxTokens: 64_000, InputTokens: 30_000, Messages: withIDs("a")}
		blocks, re := streamOnce(t, e, req)
		require.NotNil(t, re, "attempt %d", i)
		assert.Equal(t, loop.KindStream, re.Kind, "attempt %d", i)
		assert.Empty(t, blocks, "attempt %d: an empty reply streams nothing before the cut", i)
	}
}
