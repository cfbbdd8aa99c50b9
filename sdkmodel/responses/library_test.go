package responses_test

import (
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/responses"
	"github.com/loopsim/loopsim/sdkmodel/sdktest"
)

// wireLimits are the scenarios whose traces differ over the Responses
// wire, and why: each plays something this API cannot carry. The first
// six differ over the Messages API too (sdkmodel's library test).
var wireLimits = map[string]string{
	// image_size is a check a client makes before sending; over the wire
	// it can only be the API's 400 rejecting the image (media_too_large).
	"cc-image-error":         "image_size arrives as a 400 media_too_large",
	"seed-image-error":       "image_size arrives as a 400 media_too_large",
	"codex-loop-image-error": "image_size arrives as a 400 media_too_large",
	// fallback_triggered is the in-process shortcut for the retry layer's
	// decision to switch models; over the wire it is one overload (503
	// server_is_overloaded), which the loop counts toward its own rule.
	"seed-fallback-model":                    "fallback_triggered arrives as an overload",
	"seed-fallback-with-tool-uses-in-flight": "fallback_triggered arrives as an overload",
	// thrown is a failure that is not an API answer (a broken client);
	// the server can only answer it with a 500.
	"seed-model-error":       "thrown arrives as a 500 server_error",
	"codex-loop-model-error": "thrown arrives as a 500 server_error",
	// The run ends on dropped connections: the error it ends with is the
	// HTTP client's message, so the error message the loop appends (and
	// its size) differ.
	"cc-drops-never-go-non-streaming": "ends on a dropped connection: the HTTP client's message",
	// The Responses API has no stop reason: a reply that stopped with
	// tool_use but carries no tool call (malformed_tool_use) reads as a
	// completed response, end_turn, so the loop sees no malformed reply.
	"cc-malformed-tool-use-retry":     "malformed_tool_use arrives as end_turn: the API has no stop reason",
	"cc-malformed-tool-use-exhausted": "malformed_tool_use arrives as end_turn: the API has no stop reason",
}

// Every scenario of the library gives the same trace when the loop
// calls the fake server's Responses API through openai-go
// as when it calls the scripted model in-process, but for the
// differences the wire forces (sdktest.RunLibrary and wireLimits say
// which).
func TestLibraryOverTheWire(t *testing.T) {
	sdktest.RunLibrary(t, func(baseURL string) (loop.Model, error) {
		return responses.New(responses.Config{BaseURL: baseURL + "/v1", APIKey: "loopsim-test", SendInputTokens: true})
	}, wireLimits)
}
