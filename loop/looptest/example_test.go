package looptest_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
)

// frontSnipper is a snipper written without the contract in mind: over
// the threshold it drops the oldest messages one at a time, keeping the
// newest KeepRecent, until the count is under the threshold. Dropping
// single messages can separate a tool_use from its tool_result.
type frontSnipper struct{}

func (frontSnipper) Snip(in loop.SnipInput) loop.SnipResult {
	msgs, tokens := in.Messages, in.Tokens
	var removed []string
	for tokens >= in.Threshold && len(msgs) > in.KeepRecent {
		removed = append(removed, msgs[0].ID)
		tokens -= msgs[0].Tokens
		msgs = msgs[1:]
	}
	return loop.SnipResult{Messages: msgs, Removed: removed}
}

// A seam implementation is checked against its contract in a test, as
// testing/fstest.TestFS checks a file system: the loop's own snipper
// passes; the naive one is caught splitting a tool call from its result,
// a history the API would refuse.
func ExampleCheckSnipper() {
	fmt.Println("loop.OldestSnipper:", looptest.CheckSnipper(loop.OldestSnipper{}))

	err := looptest.CheckSnipper(frontSnipper{})
	first, _, _ := strings.Cut(err.Error(), "\n") // one violation per line
	fmt.Println("frontSnipper:", first)
	// Output:
	// loop.OldestSnipper: <nil>
	// frontSnipper: looptest.CheckSnipper: 3 messages, 410 tokens, threshold 1, keep 1: tool_result for "toolu_1_1" in message "m3" lost its tool_use
}

// busyModel answers every request with a rate limit carrying status.
type busyModel struct{ status int }

func (m busyModel) Stream(ctx context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error) {
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	return loop.Response{}, &loop.RequestError{Kind: loop.KindRateLimited, Status: m.status, Message: "slow down"}
}

// A model is given as a constructor (each part of the check starts from
// a fresh one). A rate limit must carry the API's status for its kind,
// loop.ErrorKind.Status: 429.
func ExampleCheckModel() {
	fmt.Println("429:", looptest.CheckModel(func() loop.Model { return busyModel{status: loop.KindRateLimited.Status()} }))

	err := looptest.CheckModel(func() loop.Model { return busyModel{status: 503} })
	first, _, _ := strings.Cut(err.Error(), "\n")
	fmt.Println("503:", first)
	// Output:
	// 429: <nil>
	// 503: looptest.CheckModel: request 1 (main): RequestError rate_limited has status 503, want 429
}
