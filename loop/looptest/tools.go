package looptest

import (
	"context"
	"fmt"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// DefaultToolCalls are the calls [CheckTools] makes when given none.
var DefaultToolCalls = []loop.ToolCall{
	{ID: "toolu_check_1", Name: "Read", Input: `{"path":"a.go"}`, Index: 0},
	{ID: "toolu_check_2", Name: "Write", Input: `{"path":"b.go","content":"x"}`, Index: 1},
	{ID: "toolu_check_3", Name: "Bash", Input: `{"command":"true"}`, Index: 2},
}

// CheckTools checks a [loop.Tools] with the given calls (or
// [DefaultToolCalls]); newTools must return a fresh instance each time.
// Each call is run with a cancelled context, then with a live one, and,
// if the tools implement [loop.ConcurrencySafe], the calls they report
// safe are run again all at once (run the check with -race). It checks
// that:
//
//   - with a cancelled context Run returns promptly with the context's
//     error;
//   - with a live context Run either returns, or returns promptly with the
//     context's error once the check cancels it (a call still running
//     after a short grace period is cancelled);
//   - a returned outcome has a non-negative size, and a context error is
//     not returned while the context is live;
//   - ConcurrencySafe gives the same answer twice and does not panic.
//
// Panics are allowed (the loop recovers them and makes an error result),
// so they are not violations.
func CheckTools(newTools func() loop.Tools, calls ...loop.ToolCall) error {
	r := &report{check: "CheckTools"}
	if len(calls) == 0 {
		calls = DefaultToolCalls
	}
	tools := newTools()
	for _, c := range calls {
		res := run(cancelledContext(), false, func(ctx context.Context) (loop.ToolOutcome, error) { return tools.Run(ctx, c) })
		what := fmt.Sprintf("call %s (%s) with a cancelled context", c.ID, c.Name)
		switch {
		case !res.returned:
			r.errorf("%s: Run did not return within %v", what, timeout)
		case res.hasPanic:
		case !isContextError(res.err):
			r.errorf("%s: Run returned (%+v, %v), not the context's error", what, res.val, res.err)
		}
	}

	tools = newTools()
	safe, _ := tools.(loop.ConcurrencySafe)
	var concurrent []loop.ToolCall
	for _, c := range calls {
		checkToolRun(r, tools, c, "")
		if safe == nil {
			continue
		}
		a, ok1 := concurrencySafe(safe, c)
		b, ok2 := concurrencySafe(safe, c)
		switch {
		case !ok1 || !ok2:
			r.errorf("call %s (%s): ConcurrencySafe panicked", c.ID, c.Name)
		case a != b:
			r.errorf("call %s (%s): ConcurrencySafe answered %v, then %v", c.ID, c.Name, a, b)
		case a:
			concurrent = append(concurrent, c)
		}
	}

	if len(concurrent) > 1 {
		tools = newTools()
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, c := range concurrent {
			wg.Go(func() {
				sub := &report{check: r.check}
				checkToolRun(sub, tools, c, " (run concurrently)")
				mu.Lock()
				r.errs = append(r.errs, sub.errs...)
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	return r.err()
}

func concurrencySafe(s loop.ConcurrencySafe, c loop.ToolCall) (safe, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return s.ConcurrencySafe(c), true
}

// checkToolRun runs one call with a live context.
func checkToolRun(r *report, tools loop.Tools, c loop.ToolCall, how string) {
	res := run(context.Background(), true, func(ctx context.Context) (loop.ToolOutcome, error) { return tools.Run(ctx, c) })
	what := fmt.Sprintf("call %s (%s)%s", c.ID, c.Name, how)
	switch {
	case !res.returned:
		r.errorf("%s: Run did not return within %v of its context being cancelled", what, timeout)
	case res.hasPanic:
	case res.cancelled:
		if !isContextError(res.err) {
			r.errorf("%s: Run cancelled after %v returned (%+v, %v), not the context's error", what, grace, res.val, res.err)
		}
	case isContextError(res.err):
		r.errorf("%s: Run returned the context error %v while its context was live", what, res.err)
	case res.err == nil && res.val.Tokens < 0:
		r.errorf("%s: outcome has negative tokens %d", what, res.val.Tokens)
	}
}
