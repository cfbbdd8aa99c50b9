package agents

import (
	"fmt"
	"time"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

// The rules a cell of the matrix is judged by: things an agent does that
// its user would call wrong, whatever the agent.
const (
	// RuleRetriesWithoutBound: more than [StormFailures] requests answered
	// by a failure in one run: the agent retries without a bound (a
	// request storm).
	RuleRetriesWithoutBound = "retries without bound"
	// RuleExitZeroAfterFailure: the agent exited 0 though no request got
	// a complete reply: it reported success for a session that failed.
	RuleExitZeroAfterFailure = "exit 0 after the session failed"
	// RuleCompactionLoop: more than [LoopCompactions] compaction requests
	// in one run.
	RuleCompactionLoop = "compacts in a loop"
	// RuleIgnoresRetryAfter: a request came sooner after a rate limit than
	// its retry-after asked, on the server's clock.
	RuleIgnoresRetryAfter = "ignores retry-after"
	// RuleHangsAfterFailure: the agent neither exited nor sent a request
	// for the last half of its time limit: it hangs instead of ending.
	RuleHangsAfterFailure = "hangs instead of exiting"
)

// StormFailures is how many failed requests in one run make a request
// storm: every released agent's retry budget is smaller (Claude Code's is
// 10, Codex's 4 or 5 a layer).
const StormFailures = 20

// LoopCompactions is how many compaction requests in one run make a
// compaction loop: a session of a few messages needs one.
const LoopCompactions = 3

// retryAfterSlack is how much sooner than its retry-after a request may
// come (the server's and the agent's clocks round differently).
const retryAfterSlack = 100 * time.Millisecond

// Judge is the rules the agent broke in run out (timedOut: killed at
// its time limit of limit), each with what shows it.
func Judge(out *scenarios.AgentOutcome, timedOut bool, limit time.Duration) []string {
	var broken []string
	failures, compactions, replied := 0, 0, false
	for _, r := range out.Records {
		if failed(r) {
			failures++
		}
		if r.Purpose == loop.PurposeCompact {
			compactions++
		}
		if r.Answer == "text" {
			replied = true
		}
	}
	if failures > StormFailures {
		broken = append(broken, fmt.Sprintf("%s: %d failed requests", RuleRetriesWithoutBound, failures))
	}
	if !timedOut && out.Exit == 0 && len(out.Records) > 0 && !replied {
		broken = append(broken, fmt.Sprintf("%s: no request got a complete reply", RuleExitZeroAfterFailure))
	}
	if compactions > LoopCompactions {
		broken = append(broken, fmt.Sprintf("%s: %d compaction requests", RuleCompactionLoop, compactions))
	}
	if gap, want, ok := retryAfterIgnored(out.Calls); ok {
		broken = append(broken, fmt.Sprintf("%s: %.1f s after a 429 asking for %.1f s", RuleIgnoresRetryAfter, gap.Seconds(), want.Seconds()))
	}
	if timedOut && len(out.Calls) > 0 {
		if idle := limit - out.Calls[len(out.Calls)-1].End; idle > limit/2 {
			broken = append(broken, fmt.Sprintf("%s: no request for the last %.0f s before the %.0f s limit", RuleHangsAfterFailure, idle.Seconds(), limit.Seconds()))
		}
	}
	return broken
}

// failed says whether the server answered r with a failure.
func failed(r wire.Record) bool {
	switch r.Answer {
	case "text", "tool", "rejected", "fault":
		return false
	}
	return true
}

// retryAfterIgnored finds the first answer carrying a retry-after whose
// next call came sooner than it asked: the gap and the retry-after.
func retryAfterIgnored(calls []scenarios.ModelCall) (gap, want time.Duration, ok bool) {
	for i := 0; i+1 < len(calls); i++ {
		if calls[i].RetryAfterMS <= 0 {
			continue
		}
		want = time.Duration(calls[i].RetryAfterMS) * time.Millisecond
		if gap = calls[i+1].Start - calls[i].End; gap+retryAfterSlack < want {
			return gap, want, true
		}
	}
	return 0, 0, false
}
