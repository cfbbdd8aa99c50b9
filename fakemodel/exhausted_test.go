package fakemodel_test

import (
	"testing"
	"time"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A used-up script fails every later request with an ExhaustedError and
// leaves the model usable.
func TestExhaustedModelStaysUsable(t *testing.T) {
	m := &fakemodel.Model{Script: []fakemodel.Step{{Text: "only"}}}
	req := loop.Request{Purpose: loop.PurposeMain, Model: "m", MaxTokens: 100, InputTokens: 10}
	_, err := m.Stream(t.Context(), req, func(loop.Block) {})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := m.Stream(t.Context(), req, func(loop.Block) {})
		_, err2 := m.Stream(t.Context(), req, func(loop.Block) {})
		assert.Error(t, err2, "the third request")
		m.Done()
		done <- err
	}()
	select {
	case err := <-done:
		var ex *fakemodel.ExhaustedError
		require.ErrorAs(t, err, &ex)
		assert.Equal(t, 2, ex.Request)
		assert.True(t, m.Done())
		assert.Len(t, m.Requests, 3)
	case <-time.After(10 * time.Second):
		t.Fatal("the model stayed locked after its script was used up")
	}
}

// A step's input_tokens replaces the request's count, from 1 up.
func TestStepInputTokensFromOne(t *testing.T) {
	m := &fakemodel.Model{Script: []fakemodel.Step{{Text: "a", InputTokens: 1}, {Text: "b"}}}
	req := loop.Request{Purpose: loop.PurposeMain, Model: "m", MaxTokens: 100, InputTokens: 10}
	resp, err := m.Stream(t.Context(), req, func(loop.Block) {})
	require.NoError(t, err)
	assert.Equal(t, 1, resp.Usage.InputTokens, "the step's input_tokens")
	resp, err = m.Stream(t.Context(), req, func(loop.Block) {})
	require.NoError(t, err)
	assert.Equal(t, 10, resp.Usage.InputTokens, "the request's count")
}

// An ExhaustedError names the request, its purpose, the script's length
// and, with Answers, the queue that ran out.
func TestExhaustedErrorWording(t *testing.T) {
	m := &fakemodel.Model{Script: []fakemodel.Step{{Text: "only"}}}
	req := loop.Request{Purpose: loop.PurposeMain, Model: "m", MaxTokens: 100, InputTokens: 10}
	_, err := m.Stream(t.Context(), req, func(loop.Block) {})
	require.NoError(t, err)
	_, err = m.Stream(t.Context(), req, func(loop.Block) {})
	require.Error(t, err)
	assert.Equal(t, "fakemodel: script exhausted: request 2 (main) arrived after all 1 steps were used", err.Error())

	queued := &fakemodel.ExhaustedError{Request: 12, Purpose: loop.PurposeCompact, ScriptLen: 30, Queue: "answers.compact"}
	assert.Equal(t, "fakemodel: script exhausted: request 12 (compact) arrived after all 30 steps of answers.compact were used", queued.Error())
}
