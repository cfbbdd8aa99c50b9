package loop_test

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goroutineID is the calling goroutine's number, read from its stack
// header ("goroutine 7 [running]:").
func goroutineID(t *testing.T) int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	fields := bytes.Fields(buf)
	require.GreaterOrEqual(t, len(fields), 2, "stack header %q", buf)
	id, err := strconv.Atoi(string(fields[1]))
	require.NoError(t, err, "stack header %q", buf)
	return id
}

// TestInlineModelCalls: with a context that can be cancelled, Run calls
// the Model on a goroutine of its own, so that a Model ignoring
// cancellation cannot hang it; with Config.InlineModelCalls it calls it
// on Run's goroutine, and a Model that cancels the run and returns ends
// it the same way.
func TestInlineModelCalls(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(strconv.FormatBool(inline), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var calls []int
			model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
				calls = append(calls, goroutineID(t))
				yield(text("partial")[0])
				cancel()
				return loop.Response{}, ctx.Err()
			})
			runner := goroutineID(t)
			res, err := loop.Run(ctx, loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, InlineModelCalls: inline},
				[]loop.Message{loop.UserText("hi")})
			require.NoError(t, err)
			assert.Equal(t, loop.AbortedStreaming, res.Terminal)
			require.NotEmpty(t, calls)
			for _, id := range calls {
				if inline {
					assert.Equal(t, runner, id, "an inline call runs on Run's goroutine")
				} else {
					assert.NotEqual(t, runner, id, "a call under a cancellable context runs on its own goroutine")
				}
			}
		})
	}
}
