package fakemodel

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

func TestStopHooks(t *testing.T) {
	h := &StopHooks{Outcomes: []StopOutcome{
		{},
		{Block: "run the tests", Times: 2},
		{Err: "hook crashed"},
		{Prevent: true, Reason: "done for today"},
	}}
	type verdict struct {
		res loop.StopHookResult
		err string
	}
	var got []verdict
	active := false
	for i := range 6 {
		res, err := h.RunStopHooks(context.Background(), loop.StopHookInput{StopHookActive: active, Turn: i + 1,
			Messages: []loop.Message{loop.UserText("x")}})
		v := verdict{res: res}
		if err != nil {
			v.err = err.Error()
		}
		got = append(got, v)
		active = len(res.BlockingErrors) > 0
	}
	block := loop.StopHookResult{BlockingErrors: []string{"run the tests"}}
	prevent := loop.StopHookResult{PreventContinuation: true, Reason: "done for today"}
	want := []verdict{{}, {res: block}, {res: block}, {err: "hook crashed"}, {res: prevent}, {res: prevent}}
	assert.Equal(t, want, got, "verdicts")
	assert.Equal(t, []bool{false, false, true, true, false, false}, h.Active(), "Active()")
	// the zero StopHooks always passes
	res, err := (&StopHooks{}).RunStopHooks(context.Background(), loop.StopHookInput{})
	assert.NoError(t, err, "zero StopHooks")
	assert.Equal(t, loop.StopHookResult{}, res, "zero StopHooks")
}

func TestStopHookPanicIsNotRecovered(t *testing.T) {
	h := &StopHooks{Outcomes: []StopOutcome{{Panic: "hook"}}}
	assert.PanicsWithValue(t, "hook", func() { h.RunStopHooks(context.Background(), loop.StopHookInput{}) })
}
