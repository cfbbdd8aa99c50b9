package gemini_test

import (
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/gemini"
	"github.com/loopsim/loopsim/sdkmodel/sdktest"
)

// wireLimits are the scenarios whose traces differ over Gemini's wire,
// and why: each plays something the wire cannot carry. The first six
// differ over the Messages API's wire too (sdkmodel's list).
var wireLimits = map[string]string{
	// image_size is a check a client makes before sending; over the wire
	// it can only be the API's 400 rejecting the image (media_too_large).
	"cc-image-error":         "image_size arrives as a 400 media_too_large",
	"seed-image-error":       "image_size arrives as a 400 media_too_large",
	"codex-loop-image-error": "image_size arrives as a 400 media_too_large",
	// fallback_triggered is the in-process shortcut for the retry layer's
	// decision to switch models; over the wire it is one 503 UNAVAILABLE
	// (overloaded), which the loop counts toward its own fallback rule,
	// or, after streamed blocks, an error chunk (stream_error).
	"seed-fallback-model":                    "fallback_triggered arrives as a 503 overloaded",
	"seed-fallback-with-tool-uses-in-flight": "fallback_triggered after blocks arrives as an error chunk",
	// thrown is a failure that is not an API answer (a broken client);
	// the server can only answer it with a 500.
	"seed-model-error":       "thrown arrives as a 500 INTERNAL",
	"codex-loop-model-error": "thrown arrives as a 500 INTERNAL",
	// Dropping the oldest exchange from an overflowing compaction request
	// leaves a function call first, which the API refuses.
	"codex-compaction-overflows-ends-run": "the trimmed compaction request begins with a function call: a 400 invalid_request, not prompt too long",
	// The run ends on dropped connections: the error it ends with is the
	// HTTP client's message, so the error message the loop appends (and
	// its size) differ.
	"cc-drops-never-go-non-streaming": "ends on a dropped connection: the HTTP client's message",
	// Gemini sends a function call whole, its args a JSON object: a call
	// the abort cut inside its input reaches the loop with args {}, so
	// the reply's size differs.
	"incident-cc-1956-abort-while-streaming-tool-use": "a cut function call arrives with args {}",
	// Likewise a function call the output cap cut (MAX_TOKENS): it
	// arrives with args {}, a valid input, so the loop runs the tool where
	// in process the cut input gets an input-error result without running
	// it (an agent's own input validation refuses the empty args).
	"cc-truncated-mid-tool-input": "a function call cut by max tokens arrives with args {}: the tool runs",
	// Gemini's parts have no block ends: the text a dropped connection cut
	// arrives as content, a block the loop counts as received before
	// the drop (in process the cut block never arrives).
	"cc-drop-mid-stream-goes-non-streaming": "the text a drop cut arrives as a received block",
}

// Every scenario of the library gives the same trace when the loop
// calls the fake server through the genai SDK (Gemini's API)
// as when it calls the scripted model in-process, but for the
// differences the wire forces (sdktest.RunLibrary and wireLimits say
// which).
func TestLibraryOverTheWire(t *testing.T) {
	sdktest.RunLibrary(t, func(baseURL string) (loop.Model, error) {
		return gemini.New(gemini.Config{BaseURL: baseURL, APIKey: "loopsim-test", SendInputTokens: true})
	}, wireLimits)
}
