package scenarios

import (
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

func TestWatchdogErrorNamesWhereTheRunWaited(t *testing.T) {
	cases := []struct {
		res  *loop.Result
		want string
	}{
		{nil, "stopped before its first iteration ended"},
		{&loop.Result{Terminal: loop.AbortedTools, Stats: loop.Stats{Iterations: 3}}, "tool batch of iteration 3 (a slow tool"},
		{&loop.Result{Terminal: loop.AbortedStreaming, Stats: loop.Stats{Iterations: 1}}, "waiting for the model in iteration 1"},
		{&loop.Result{Terminal: loop.Completed, Stats: loop.Stats{Iterations: 9000}}, `in iteration 9000, ended "completed"`},
	}
	for _, c := range cases {
		err := watchdogError("slow", c.res)
		assert.ErrorContains(t, err, "scenario slow: the run did not finish within 10s")
		assert.ErrorContains(t, err, c.want)
	}
}
