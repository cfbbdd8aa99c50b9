package wirecheck

import (
	"fmt"
	"time"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// Run is one finished case: what the server played and saw, and what the
// agent returned. The invariants are pure functions of it.
type Run struct {
	// Case is the case served.
	Case Case
	// Records are the server's records of every request, in order.
	Records []wire.Record
	// Started is when the case's server started, on the wall clock: the
	// origin of the records' times (a measurement, for the exporters).
	Started time.Time
	// Failed is whether the agent reported that the session failed (an
	// error returned; a non-zero exit for a process).
	Failed bool
	// Err is the error the agent returned, or what ended the process.
	Err error
	// Elapsed is how long the session took; Hung is set when it had not
	// returned by the session bound (and was abandoned).
	Elapsed time.Duration
	Hung    bool
	// Exit is a process agent's exit status (-1 when it was killed); for
	// an in-process agent 0 when it returned nil, 1 when it returned an
	// error, -1 when it hung.
	Exit int
	// FinalEvent is the agent's last word: a process's (the type of its
	// last JSON line of output, else its last line; scenarios.FinalEvent),
	// "success", "error" or "hung" for an in-process agent.
	FinalEvent string
	// Limits are the limits the agent is held to (Options with defaults).
	Limits Options
}

// Violation is one invariant a run broke.
type Violation struct {
	// Invariant names it ([InvariantNames]).
	Invariant string
	// Request is the Seq of the request where it broke; 0 for the session
	// as a whole.
	Request int
	// Detail says what happened and what the bound was.
	Detail string
}

// Error implements error.
func (v Violation) Error() string {
	if v.Request > 0 {
		return fmt.Sprintf("%s: request %d: %s", v.Invariant, v.Request, v.Detail)
	}
	return fmt.Sprintf("%s: %s", v.Invariant, v.Detail)
}

// invariant is one wire invariant.
type invariant struct {
	name  string
	check func(r Run) *Violation
	// rule says it in a sentence.
	rule string
}

// invariants in the order they are checked and documented
// (docs/check-agent.md).
var invariants = []invariant{
	{"tool-calls-answered", toolCallsAnswered, "no request is refused by the API (the server refuses one whose tool calls are not each answered by a tool result, as the APIs do)."},
	{"no-request-after-end", noRequestAfterEnd, "no request after a main request answered with the text that ends the session."},
	{"bounded-retries", boundedRetries, "at most the agent's retry budget plus one failed requests in a row: no request storm under a persistent fault."},
	{"retry-after-honoured", retryAfterHonoured, "the request after a 429 with a retry-after arrives no sooner than the retry-after less the slack, on the server's clock."},
	{"no-double-billing", noDoubleBilling, "no request repeats the one before it when that one was answered with a complete reply."},
	{"bounded-compaction", boundedCompaction, "at most the compaction bound of compaction requests in a row each with at most one main reply since the one before it: a compaction that does not buy two main turns made no progress."},
	{"overflow-shrinks", overflowShrinks, "after a main request refused as over the context window, the next main request is smaller, or there is none."},
	{"max-tokens-within-model", maxTokensWithinModel, "no request asks for more output tokens than the model's maximum."},
	{"session-ends", sessionEnds, "the session ends within its time bound."},
	{"failure-reported", failureReported, "a session that never got its completing text answer reports failure (a non-zero exit)."},
}

// Rule is the invariant named name in a sentence; empty for no such
// invariant.
func Rule(name string) string {
	for _, inv := range invariants {
		if inv.name == name {
			return inv.rule
		}
	}
	return ""
}

// InvariantNames are the names of the wire invariants, in the order
// [Check] checks them.
func InvariantNames() []string {
	out := make([]string, len(invariants))
	for i, inv := range invariants {
		out[i] = inv.name
	}
	return out
}

// Check returns every invariant r breaks, in the order of
// [InvariantNames].
func Check(r Run) []Violation {
	var out []Violation
	for _, inv := range invariants {
		if v := inv.check(r); v != nil {
			v.Invariant = inv.name
			out = append(out, *v)
		}
	}
	return out
}

// played reports whether a record reached the model (and so used a
// step of the schedule): it was read and not refused.
func played(rec wire.Record) bool {
	return rec.Purpose != "" && rec.Answer != "rejected"
}

// steps pairs each main record with the step of the schedule that
// answered it (ok false for a record the model never played and for a
// compaction request, which the summary answers).
func (r Run) steps() []stepAt {
	out := make([]stepAt, len(r.Records))
	n := 0
	for i, rec := range r.Records {
		if !played(rec) || rec.Purpose != loop.PurposeMain {
			continue
		}
		out[i].step, out[i].ok = r.Case.StepFor(n)
		n++
	}
	return out
}

type stepAt struct {
	step fakemodel.Step
	ok   bool
}

// failedAnswer reports whether a record's answer is a failure: an error
// status, a cut stream, a dropped connection, a refusal.
func failedAnswer(a string) bool {
	switch a {
	case "text", "tool", "trunc", "empty", "malformed", "abort", "gone":
		return false
	}
	return true
}

// completeAnswer reports whether an answer was a whole reply the agent
// could use: text or a tool call.
func completeAnswer(a string) bool { return a == "text" || a == "tool" }

// toolCallsAnswered: no request is refused by the API. The server
// refuses a request whose tool calls are not each answered by a tool
// result (or whose results answer no call) as the APIs do, so a tool
// call left unanswered before the next model request shows as a
// refused request. A refusal for an output cap above the model's
// maximum is max-tokens-within-model's.
func toolCallsAnswered(r Run) *Violation {
	for _, rec := range r.Records {
		if rec.Answer == "rejected" && !overCap(r, rec) {
			return &Violation{Request: rec.Seq, Detail: fmt.Sprintf("the %s API refused the request: %s", rec.API, rec.Error)}
		}
	}
	return nil
}

func overCap(r Run, rec wire.Record) bool {
	return r.Limits.Model.MaxOutputTokens > 0 && rec.MaxTokens > r.Limits.Model.MaxOutputTokens
}

// noRequestAfterEnd: after a main request answered with text (the answer
// that completes the session: the schedule's replies before it call
// tools), the agent sends nothing more.
func noRequestAfterEnd(r Run) *Violation {
	for i, rec := range r.Records {
		if rec.Purpose == loop.PurposeMain && rec.Answer == "text" && i+1 < len(r.Records) {
			next := r.Records[i+1]
			return &Violation{Request: next.Seq, Detail: fmt.Sprintf("request %d (%s) came after request %d's text answer ended the session",
				next.Seq, next.Label(), rec.Seq)}
		}
	}
	return nil
}

// boundedRetries: at most MaxRetries+1 failed requests in a row (the
// first attempt and its retries); more is a request storm.
func boundedRetries(r Run) *Violation {
	limit := r.Limits.MaxRetries + 1
	run := 0
	for _, rec := range r.Records {
		if !failedAnswer(rec.Answer) {
			run = 0
			continue
		}
		run++
		if run > limit {
			return &Violation{Request: rec.Seq, Detail: fmt.Sprintf("%d failed requests in a row, more than the %d the agent's %d retries allow",
				run, limit, r.Limits.MaxRetries)}
		}
	}
	return nil
}

// retryAfterHonoured: the request after a rate limit that carried a
// retry-after arrives no sooner than the retry-after, less the slack, on
// the server's clock.
func retryAfterHonoured(r Run) *Violation {
	st := r.steps()
	for i, rec := range r.Records[:max(len(r.Records)-1, 0)] {
		if !st[i].ok || st[i].step.Kind != fakemodel.RateLimited || st[i].step.RetryAfterMS == 0 {
			continue
		}
		want := time.Duration(st[i].step.RetryAfterMS) * time.Millisecond
		next := r.Records[i+1]
		if gap := next.Arrival - rec.Arrival; gap < want-r.Limits.RetryAfterSlack {
			return &Violation{Request: next.Seq, Detail: fmt.Sprintf("arrived %s after request %d's 429 with retry-after %s (slack %s)",
				gap.Round(time.Millisecond), rec.Seq, want, r.Limits.RetryAfterSlack)}
		}
	}
	return nil
}

// noDoubleBilling: no request repeats the one before it when that one
// was answered with a complete reply (text or a tool call): the same
// messages, none kept back, none added, so the same answer is paid for
// twice.
func noDoubleBilling(r Run) *Violation {
	var prev *wire.Record
	for i := range r.Records {
		rec := r.Records[i]
		if !played(rec) {
			continue
		}
		if prev != nil && completeAnswer(prev.Answer) && rec.Purpose == prev.Purpose &&
			rec.Kept == rec.Messages && rec.Dropped == 0 && len(rec.Appended) == 0 {
			return &Violation{Request: rec.Seq, Detail: fmt.Sprintf("it repeats request %d, already answered %s", prev.Seq, prev.Label())}
		}
		prev = &r.Records[i]
	}
	return nil
}

// boundedCompaction: at most MaxCompactions compaction requests in a
// row each with at most one main reply (a main request answered, not
// failed) since the compaction before it. A compaction that does not buy
// at least two main turns made no progress, so this catches compactions
// back to back and an agent that compacts after every turn alike.
func boundedCompaction(r Run) *Violation {
	n, replies := 0, 0
	for _, rec := range r.Records {
		switch {
		case rec.Purpose == loop.PurposeCompact:
			if replies > 1 {
				n = 0
			}
			n, replies = n+1, 0
			if n > r.Limits.MaxCompactions {
				return &Violation{Request: rec.Seq, Detail: fmt.Sprintf("%d compaction requests in a row with at most one main reply since the one before each (at most %d)",
					n, r.Limits.MaxCompactions)}
			}
		case rec.Purpose == loop.PurposeMain && !failedAnswer(rec.Answer):
			replies++
		}
	}
	return nil
}

// overflowShrinks: after a main request refused as over the context
// window, the next main request is smaller, or the agent sends none.
func overflowShrinks(r Run) *Violation {
	st := r.steps()
	for i, rec := range r.Records {
		if !st[i].ok || st[i].step.Kind != fakemodel.PromptTooLong || rec.Purpose != loop.PurposeMain {
			continue
		}
		for _, next := range r.Records[i+1:] {
			if next.Purpose != loop.PurposeMain || !played(next) {
				continue
			}
			if next.InputTokens >= rec.InputTokens {
				return &Violation{Request: next.Seq, Detail: fmt.Sprintf("%d input tokens after request %d's %d were over the window",
					next.InputTokens, rec.Seq, rec.InputTokens)}
			}
			break
		}
	}
	return nil
}

// maxTokensWithinModel: no request asks for more output tokens than the
// model's maximum.
func maxTokensWithinModel(r Run) *Violation {
	for _, rec := range r.Records {
		if overCap(r, rec) {
			return &Violation{Request: rec.Seq, Detail: fmt.Sprintf("max_tokens %d is above model %s's maximum %d",
				rec.MaxTokens, r.Limits.Model.Name, r.Limits.Model.MaxOutputTokens)}
		}
	}
	return nil
}

// sessionEnds: the session returns within the session bound.
func sessionEnds(r Run) *Violation {
	if r.Hung || r.Elapsed >= r.Limits.SessionTimeout {
		return &Violation{Detail: fmt.Sprintf("the session had not ended after %s (bound %s; %d requests)",
			r.Elapsed.Round(time.Millisecond), r.Limits.SessionTimeout, len(r.Records))}
	}
	return nil
}

// failureReported: a session that never got the answer that completes
// it (a main request answered with text) reports failure.
func failureReported(r Run) *Violation {
	if r.Hung || r.Failed {
		return nil
	}
	for _, rec := range r.Records {
		if rec.Purpose == loop.PurposeMain && rec.Answer == "text" {
			return nil
		}
	}
	last := "no request at all"
	if n := len(r.Records); n > 0 {
		last = fmt.Sprintf("its last request was %d (%s)", r.Records[n-1].Seq, r.Records[n-1].Label())
	}
	return &Violation{Detail: "the session never completed (" + last + ") but the agent reported success"}
}
