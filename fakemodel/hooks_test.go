package fakemodel

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/loopsim/loopsim/loop"
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
	if !reflect.DeepEqual(got, want) {
		t.Errorf("verdicts %+v\nwant %+v", got, want)
	}
	if a := h.Active(); !slices.Equal(a, []bool{false, false, true, true, false, false}) {
		t.Errorf("Active() = %v", a)
	}
	// the zero StopHooks always passes
	if res, err := (&StopHooks{}).RunStopHooks(context.Background(), loop.StopHookInput{}); err != nil || !reflect.DeepEqual(res, loop.StopHookResult{}) {
		t.Errorf("zero StopHooks: %+v, %v", res, err)
	}
}

func TestStopHookPanicIsNotRecovered(t *testing.T) {
	h := &StopHooks{Outcomes: []StopOutcome{{Panic: "hook"}}}
	defer func() {
		if r := recover(); r != "hook" {
			t.Errorf("recovered %v", r)
		}
	}()
	h.RunStopHooks(context.Background(), loop.StopHookInput{})
	t.Error("RunStopHooks returned")
}
