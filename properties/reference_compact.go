package properties

import "github.com/loopsim/loopsim/loop"

// This file is the reference's step before each main request: auto-compact
// (docs/spec.md §2.1.6, docs/profile-claude-code.md §3, with the circuit breaker and the thrash
// guard) and the blocking limit (docs/spec.md §2.2, docs/profile-claude-code.md §3), written from the
// documents.

// RefAutoCompact is autoCompactTracking (docs/spec.md §1) with the thrash guard's
// count.
type RefAutoCompact struct {
	// Compacted: an auto-compact succeeded since the tracking was last
	// cleared.
	Compacted bool `json:"compacted,omitempty"`
	// RepliesSince counts the model replies received since that
	// compaction.
	RepliesSince int `json:"replies_since,omitempty"`
	// Failures counts consecutive auto-compact failures.
	Failures int `json:"failures,omitempty"`
	// RapidRefills counts consecutive rapid refills.
	RapidRefills int `json:"rapid_refills,omitempty"`
}

// Auto-compactions, as PreRequest reports them: none, attempted
// (succeeding or failing), or due but skipped (and why).
const (
	CompactNone   = ""
	CompactOK     = "ok"
	CompactFailed = "failed"
	// SkippedBreaker: the circuit breaker has tripped.
	SkippedBreaker = "skipped circuit_breaker"
	// SkippedTooFew: too few exchanges to compact.
	SkippedTooFew = "skipped too_few_exchanges"
	// SkippedRapidRefill: the thrash guard ended the run.
	SkippedRapidRefill = "skipped rapid_refill_breaker"
)

// PreRequest is what happens before an iteration's main request, in
// state s, when an auto-compaction would succeed if compactOK. It returns
// what auto-compact did (CompactNone, CompactOK, CompactFailed or a
// Skipped reason), the terminal if the loop ends before sending, and the state after.
//
// The token count is the last reply's usage plus the sizes appended
// after it (docs/profile-claude-code.md §3); the reference holds the reply's part in
// s.Context and takes the appended part as too small to cross a
// threshold. The rules:
//   - a model in reactive-only mode enforces neither threshold nor
//     blocking limit (docs/profile-claude-code.md §3);
//   - auto-compact acts when on and context collapse is off (docs/spec.md
//     §2.1.6), at or over the threshold, unless p.MaxAutoCompactFailures
//     consecutive failures tripped the circuit breaker, or the
//     conversation has fewer than p.MinExchangesToCompact exchanges and
//     the count is under the blocking limit (docs/profile-claude-code.md §3;
//     the loop takes p.MinExchangesToLaterCompact instead when the
//     conversation begins with a summary, which env.Exchanges, a lower
//     bound, does not tell: the reference keeps the first minimum);
//   - reaching the threshold again within p.RapidRefillWindow replies
//     after a compaction is a rapid refill; the p.RapidRefillTrip-th
//     consecutive one ends rapid_refill_breaker, a refill further apart
//     restarts the count (docs/profile-claude-code.md §3);
//   - a success resets the failures and restarts the reply count; a
//     failure adds one failure and, with p.AutoCompactFailureEndsRun
//     (observed of codex), ends the run api_error before the request;
//   - if nothing was compacted and the count is at or over the blocking
//     limit, the loop ends blocking_limit (docs/spec.md §2.2), except when the
//     reactive path owns overflow (p.ReactiveOwnsOverflow with reactive
//     compact and auto-compact both on).
func PreRequest(p loop.Policy, env RefEnv, s RefState, compactOK bool) (string, loop.Terminal, RefState) {
	if env.ReactiveOnly && !s.FellBack {
		return CompactNone, "", s
	}
	count, lim := s.Context, env.Limits
	autoOn := p.AutoCompact && !p.ContextCollapse
	attempt := CompactNone
	switch {
	case !autoOn || count < lim.AutoCompactThreshold:
	case s.Auto.Failures >= p.MaxAutoCompactFailures:
		attempt = SkippedBreaker
	case env.Exchanges < p.MinExchangesToCompact && count < lim.BlockingLimit:
		attempt = SkippedTooFew
	default:
		if p.RapidRefillWindow > 0 && s.Auto.Compacted && s.Auto.RepliesSince <= p.RapidRefillWindow {
			s.Auto.RapidRefills++
			if s.Auto.RapidRefills >= p.RapidRefillTrip {
				return SkippedRapidRefill, loop.RapidRefillBreaker, s
			}
		} else {
			s.Auto.RapidRefills = 0
		}
		if compactOK {
			s.Auto = RefAutoCompact{Compacted: true, RapidRefills: s.Auto.RapidRefills}
			return CompactOK, "", s
		}
		s.Auto.Failures++
		if p.AutoCompactFailureEndsRun {
			// observed of codex: the turn fails with its compaction
			return CompactFailed, loop.APIError, s
		}
		attempt = CompactFailed
	}
	if count >= lim.BlockingLimit && !(p.ReactiveOwnsOverflow && p.ReactiveCompact && autoOn) {
		return attempt, loop.BlockingLimit, s
	}
	return attempt, "", s
}

// replied reports whether the main request got a reply (a successful
// response, kept or not).
func replied(r Reply) bool {
	switch r {
	case ReplyPromptTooLong, ReplyMedia, ReplyRequestTooLarge, ReplyImage, ReplyAPIError, ReplyAborted:
		return false
	}
	// a cut stream is a failed request, not a reply
	return cutOf(r) == ""
}

// keepsReply reports whether transition t keeps the iteration's reply in
// the history (so its usage anchors the next count).
func keepsReply(t loop.Transition) bool {
	switch t {
	case loop.NextTurn, loop.MaxOutputTokensRecovery, loop.StopHookBlocking, loop.TokenBudgetContinuation:
		return true
	}
	return false
}
