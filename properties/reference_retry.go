package properties

import (
	"slices"

	"github.com/loopsim/loopsim/loop"
)

// This file is the reference's API retry layer and model fallback
// (docs/profile-claude-code.md §7, docs/spec.md §2.3's inner fallback loop), written
// from the documents: what happens between the loop sending a main
// request and the request getting through (or failing for good).

// RetryResult is what the retry layer did with one main request that met
// a list of failures before its reply.
type RetryResult struct {
	// Actions lists, in order, each decision to send again: "retry
	// <kind>" (the same request again, with back-off or at once),
	// "stream_retry <kind>" (the outer layer's: the same request again,
	// with its attempt's retry budget whole),
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
// The rules, from docs/profile-claude-code.md §7, docs/profile-codex.md
// and docs/spec.md §2.3 and §7.7:
//   - 429, 500, 529 and dropped connections are retried, up to
//     p.APIRetries retries per request, and up to p.NonStreamingRetries
//     (with p.NonStreamingRetriesFromAPI what is left of p.APIRetries:
//     less one for the switch and the streaming attempt's retries)
//     once the request went non-streaming; with
//     p.RateLimitedStreamRetryOnly a 429 is left to the outer layer;
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
//   - the outer layer (observed of codex) takes what the rules above
//     leave, but a 400, a 529, a media error or a fallback switch: up to
//     p.StreamRetries times in all the request is sent again as it was
//     (still non-streaming after a switch), with the whole retry budget
//     of its attempt again;
//   - anything else ends the request with that failure.
func RetryLayer(p loop.Policy, hasFallback, fellBack bool, failures []loop.ErrorKind) RetryResult {
	res := RetryResult{FellBack: fellBack}
	resends, overloads, nonStreaming, thinking, outer := 0, 0, false, 0, 0
	// left is what the attempt has left of its retry budget
	left := p.APIRetries
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
			left, resends, overloads, nonStreaming, thinking, outer = p.APIRetries, 0, 0, false, 0, 0
		case k == loop.KindOverloaded && !canSwitch && p.OverloadedGiveUpAfter > 0 && overloads >= p.OverloadedGiveUpAfter:
			res.Failed = k
			return res
		case apiRetryable(k) && !(k == loop.KindRateLimited && p.RateLimitedStreamRetryOnly) && left > 0:
			left--
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
			if p.NonStreamingRetriesFromAPI {
				// the switch spends one retry of what is left
				left = max(left-1, 0)
			} else {
				left = p.NonStreamingRetries
			}
			res.Actions = append(res.Actions, "non_streaming "+string(streamKind(k)))
		case k == loop.KindInvalidRequest && resends < p.InvalidRequestResends:
			resends++
			res.Actions = append(res.Actions, "retry "+string(k))
		case outerRetryable(k) && outer < p.StreamRetries:
			outer++
			left = p.APIRetries
			if nonStreaming && !p.NonStreamingRetriesFromAPI {
				left = p.NonStreamingRetries
			}
			res.Actions = append(res.Actions, "stream_retry "+string(streamKind(k)))
		default:
			res.Failed = k
			return res
		}
	}
	return res
}

// streamKind is the error kind the loop reports for failure k: an error
// event mid-stream, before or after content, is a stream error.
func streamKind(k loop.ErrorKind) loop.ErrorKind {
	if streamError(k) {
		return loop.KindStream
	}
	return k
}

// outerRetryable reports whether the outer retry layer takes failure k
// (docs/spec.md §7.7): not a 400 (prompt too long or invalid), an
// overload, a media error or a fallback switch.
func outerRetryable(k loop.ErrorKind) bool {
	switch k {
	case loop.KindInvalidRequest, loop.KindPromptTooLong, loop.KindOverloaded, loop.KindMediaTooLarge,
		loop.KindImageSize, loop.KindFallbackTriggered:
		return false
	}
	return true
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
// fallback in between), for a stream-cut reply its cut on every attempt
// the retry layer can make, and for ReplyRequestTooLarge the 413 of every
// attempt the outer layer can make and the last one's (see
// IsReplyFailure).
func (h Happened) Attempts(p loop.Policy) []loop.ErrorKind {
	out := append([]loop.ErrorKind(nil), h.Failures...)
	switch {
	case cutOf(h.Reply) != "":
		// every attempt is cut: a streaming one, its resends, the
		// non-streaming one and the outer layer's
		return append(out, slices.Repeat([]loop.ErrorKind{cutOf(h.Reply)}, p.StreamErrorThinkingResends+p.StreamRetries+2)...)
	case h.Reply == ReplyRequestTooLarge:
		return append(out, slices.Repeat([]loop.ErrorKind{loop.KindRequestTooLarge}, p.StreamRetries+1)...)
	case h.Reply == ReplyAPIError:
		n := 2*(max(p.APIRetries, p.NonStreamingRetries)+1) + p.FallbackAfter529s
		return append(out, slices.Repeat([]loop.ErrorKind{loop.KindOverloaded}, n)...)
	}
	return out
}

// IsReplyFailure reports whether the retry layer's failure k is the
// reply's own (a 413 no layer retries further), which the loop takes
// as the reply, not as a failure of the request.
func (h Happened) IsReplyFailure(k loop.ErrorKind) bool {
	return h.Reply == ReplyRequestTooLarge && k == loop.KindRequestTooLarge
}
