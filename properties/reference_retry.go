package properties

import "github.com/loopsim/loopsim/loop"

// This file is the reference's API retry layer and model fallback
// (docs/profile-claude-code.md §7, docs/spec.md §2.3's inner fallback loop), written
// from the documents: what happens between the loop sending a main
// request and the request getting through (or failing for good).

// RetryResult is what the retry layer did with one main request that met
// a list of failures before its reply.
type RetryResult struct {
	// Actions lists, in order, each decision to send again: "retry
	// <kind>" (the same request again, with back-off or at once),
	// "non_streaming <kind>" (the switch to one non-streaming attempt) and
	// "fallback" (the switch to the fallback model, then a fresh request).
	Actions []string
	// Failed is the failure that ended the request; "" when the request
	// got through every failure to its reply.
	Failed loop.ErrorKind
	// FellBack: the fallback model is in use after the request.
	FellBack bool
	// Cut: the request ended with a stream cut after content that the
	// loop keeps (p.StreamErrorRecovery); Failed is then the cut.
	Cut bool
}

// The failures of a stream cut by an error event after content, as
// Attempts lists them for the stream-cut replies (an KindStream in
// Happened.Failures comes before any content).
const (
	// CutAfterContent: an error event after a text or tool_use block.
	CutAfterContent loop.ErrorKind = "stream_error after content"
	// CutAfterThinking: an error event after thinking blocks only.
	CutAfterThinking loop.ErrorKind = "stream_error after thinking"
)

// streamError reports whether k is an error event mid-stream, before or
// after content.
func streamError(k loop.ErrorKind) bool {
	return k == loop.KindStream || k == CutAfterContent || k == CutAfterThinking
}

// apiRetryable are the failures retried with back-off: 429, 500, 529 and
// dropped connections (docs/profile-claude-code.md §7).
func apiRetryable(k loop.ErrorKind) bool {
	switch k {
	case loop.KindRateLimited, loop.KindServer, loop.KindOverloaded, loop.KindConnection:
		return true
	}
	return false
}

// RetryLayer is the reference's retry layer for one main request: the
// request meets failures, in order, on its successive attempts, and after
// them its reply. fellBack says whether the run already switched models;
// hasFallback whether the run has a fallback model configured.
//
// The rules, from docs/profile-claude-code.md §7 and docs/spec.md §2.3:
//   - 429, 500, 529 and dropped connections are retried, up to
//     p.APIRetries retries per request, and up to p.NonStreamingRetries
//     (with p.NonStreamingRetriesFromAPI what is left of p.APIRetries:
//     less one for the switch and the streaming attempt's retries)
//     once the request went non-streaming;
//   - with no fallback to switch to, p.OverloadedGiveUpAfter
//     consecutive 529s end the request (observed of the released agent);
//   - an error event mid-stream (and, with p.NonStreamingOnDrop, a
//     dropped connection once its retries are used up) gets one
//     non-streaming attempt when p.NonStreamingFallback is on (the
//     failures here are kinds only, so a drop is one before any
//     response, which p.NonStreamingOnMidStreamDrop leaves alone);
//   - with p.StreamErrorRecovery (observed of the released agent), an
//     error event after content on a streaming attempt gets no
//     non-streaming attempt: after thinking blocks only the request is
//     sent again, streaming, up to p.StreamErrorThinkingResends times,
//     then it fails; after other content the request ends there, cut
//     (the loop keeps what finished);
//   - any other 400 is re-sent at once, up to p.InvalidRequestResends
//     times;
//   - with p.Fallback and a fallback model, and no switch yet in the run:
//     p.FallbackAfter529s consecutive 529s, a single 500 when
//     p.FallbackOn500, or the model's own fallback_triggered switch
//     models and send a fresh request (its counts start again); a second
//     switch is never attempted;
//   - anything else ends the request with that failure.
func RetryLayer(p loop.Policy, hasFallback, fellBack bool, failures []loop.ErrorKind) RetryResult {
	res := RetryResult{FellBack: fellBack}
	retries, resends, overloads, nonStreaming, thinking, spent := 0, 0, 0, false, 0, 0
	for _, k := range failures {
		if k == loop.KindOverloaded {
			overloads++
		} else {
			overloads = 0
		}
		canSwitch := p.Fallback && hasFallback && !res.FellBack
		switch {
		case canSwitch && (k == loop.KindFallbackTriggered ||
			(k == loop.KindOverloaded && p.FallbackAfter529s > 0 && overloads >= p.FallbackAfter529s) ||
			(k == loop.KindServer && p.FallbackOn500)):
			res.FellBack = true
			res.Actions = append(res.Actions, "fallback")
			retries, resends, overloads, nonStreaming = 0, 0, 0, false
		case k == loop.KindOverloaded && !canSwitch && p.OverloadedGiveUpAfter > 0 && overloads >= p.OverloadedGiveUpAfter:
			res.Failed = k
			return res
		case apiRetryable(k) && retries < budget(p, nonStreaming, spent):
			retries++
			res.Actions = append(res.Actions, "retry "+string(k))
		case (k == CutAfterContent || k == CutAfterThinking) && p.StreamErrorRecovery && !nonStreaming:
			if k == CutAfterThinking && thinking < p.StreamErrorThinkingResends {
				thinking++
				res.Actions = append(res.Actions, "retry "+string(loop.KindStream))
				continue
			}
			res.Failed, res.Cut = k, k == CutAfterContent
			return res
		case (streamError(k) || k == loop.KindConnection && p.NonStreamingOnDrop) && p.NonStreamingFallback && !nonStreaming:
			nonStreaming = true
			spent, retries = retries, 0
			name := k
			if streamError(k) {
				name = loop.KindStream
			}
			res.Actions = append(res.Actions, "non_streaming "+string(name))
		case k == loop.KindInvalidRequest && resends < p.InvalidRequestResends:
			resends++
			res.Actions = append(res.Actions, "retry "+string(k))
		default:
			res.Failed = k
			return res
		}
	}
	return res
}

// budget is the retry budget of a streaming or a non-streaming attempt.
// spent is the retries the streaming attempt used before the switch.
func budget(p loop.Policy, nonStreaming bool, spent int) int {
	if nonStreaming {
		if p.NonStreamingRetriesFromAPI {
			return max(p.APIRetries-1-spent, 0)
		}
		return p.NonStreamingRetries
	}
	return p.APIRetries
}

// cutOf is the failure every attempt of a stream-cut reply meets, or "".
func cutOf(r Reply) loop.ErrorKind {
	switch r {
	case ReplyStreamCut, ReplyStreamCutToolUse:
		return CutAfterContent
	case ReplyStreamCutThinking:
		return CutAfterThinking
	}
	return ""
}

// Attempts is every failure the iteration's main request meets under
// policy p: h.Failures, then, for ReplyAPIError (a 529 on every attempt),
// as many 529s as the retry layer can take (two requests' worth, for a
// fallback in between), and for a stream-cut reply its cut on every
// attempt the retry layer can make.
func (h Happened) Attempts(p loop.Policy) []loop.ErrorKind {
	if cut := cutOf(h.Reply); cut != "" {
		// every attempt is cut: a streaming one, its resends and the
		// non-streaming one
		out := append([]loop.ErrorKind(nil), h.Failures...)
		for range p.StreamErrorThinkingResends + 2 {
			out = append(out, cut)
		}
		return out
	}
	if h.Reply != ReplyAPIError {
		return h.Failures
	}
	n := 2*(max(p.APIRetries, budget(p, true, 0))+1) + p.FallbackAfter529s
	out := make([]loop.ErrorKind, 0, len(h.Failures)+n)
	out = append(out, h.Failures...)
	for range n {
		out = append(out, loop.KindOverloaded)
	}
	return out
}
