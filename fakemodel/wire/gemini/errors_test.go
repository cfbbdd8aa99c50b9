package gemini_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/gemini"
	"github.com/loopsim/loopsim/loop"
)

// Each fault kind has its status in Gemini's column of the fault table.
func TestStatusOf(t *testing.T) {
	tests := []struct {
		kind   loop.ErrorKind
		status int
		http   int
		name   string
	}{
		{loop.KindPromptTooLong, 400, 400, "INVALID_ARGUMENT"},
		{loop.KindInvalidRequest, 400, 400, "INVALID_ARGUMENT"},
		{loop.KindMediaTooLarge, 400, 400, "INVALID_ARGUMENT"},
		{loop.KindImageSize, 0, 400, "INVALID_ARGUMENT"},
		{loop.KindRequestTooLarge, 413, 413, "INVALID_ARGUMENT"},
		{loop.KindRateLimited, 429, 429, "RESOURCE_EXHAUSTED"},
		{loop.KindOverloaded, 529, 503, "UNAVAILABLE"},
		{loop.KindFallbackTriggered, 529, 503, "UNAVAILABLE"},
		{loop.KindServer, 500, 500, "INTERNAL"},
		{loop.KindServer, 502, 502, "UNAVAILABLE"},
		{loop.KindServer, 501, 501, "UNIMPLEMENTED"},
		{loop.KindServer, 0, 500, "INTERNAL"},
		{loop.KindOther, 401, 401, "UNAUTHENTICATED"},
		{loop.KindOther, 404, 404, "NOT_FOUND"},
		{loop.KindOther, 409, 409, "ABORTED"},
		{loop.KindOther, 418, 418, "UNKNOWN"},
		{loop.KindOther, 200, 500, "INTERNAL"},
		{loop.KindStream, 0, 500, "INTERNAL"},
	}
	for _, tt := range tests {
		got := api.StatusOf(&loop.RequestError{Kind: tt.kind, Status: tt.status})
		assert.Equal(t, wire.Status{HTTP: tt.http, Type: tt.name}, got, "%s %d", tt.kind, tt.status)
	}
}

// The server's own failures (not found, body too large, shutting down)
// are Google's error bodies with the status's name.
func TestErrorOfTheServer(t *testing.T) {
	for status, name := range map[int]string{404: "NOT_FOUND", 405: "NOT_FOUND", 413: "INVALID_ARGUMENT", 500: "INTERNAL", 503: "UNAVAILABLE"} {
		ans := api.Error(&wire.Failure{Status: status, Message: "m"})
		assert.Equal(t, status, ans.Status)
		assert.Equal(t, map[string]any{"error": map[string]any{"code": float64(status), "message": "m", "status": name}}, roundTrip(t, ans.Body))
	}
	ans := api.Error(&wire.Failure{Rejection: &wire.Rejection{Status: http.StatusUnprocessableEntity, Type: "FAILED_PRECONDITION", Message: "m"}})
	assert.Equal(t, 422, ans.Status)
	assert.Equal(t, map[string]any{"error": map[string]any{"code": float64(422), "message": "m", "status": "FAILED_PRECONDITION"}}, roundTrip(t, ans.Body))
}

// A prompt too long reads in Gemini's words when the fault's message is
// the loop's; a message of a step's own passes as it is. A retry-after
// is a RetryInfo detail in protobuf's Duration form.
func TestErrorMessagesAndRetryInfo(t *testing.T) {
	body := func(e *loop.RequestError) any { return roundTrip(t, api.Error(&wire.Failure{Err: e}).Body) }
	assert.Equal(t, map[string]any{"error": map[string]any{"code": float64(400), "status": "INVALID_ARGUMENT",
		"message": "The input token count (5000) exceeds the maximum number of tokens allowed (4000)."}},
		body(loop.PromptTooLongError(5000, 4000)))
	assert.Equal(t, "the prompt is far too long", body(&loop.RequestError{Kind: loop.KindPromptTooLong, Status: 400,
		Message: "the prompt is far too long"}).(map[string]any)["error"].(map[string]any)["message"])
	assert.Equal(t, map[string]any{"error": map[string]any{"code": float64(429), "status": "RESOURCE_EXHAUSTED", "message": "slow down",
		"details": []any{map[string]any{"@type": gemini.RetryInfoType, "retryDelay": "3s"}}}},
		body(&loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "slow down", RetryAfterMS: 3000}))
	assert.Empty(t, api.Error(&wire.Failure{Err: &loop.RequestError{Kind: loop.KindRateLimited, Status: 429, RetryAfterMS: 1}}).Header,
		"the API sends no retry-after header")
	for ms, want := range map[int]string{1000: "1s", 1500: "1.500s", 1: "0.001s", 61_000: "61s", 2050: "2.050s"} {
		assert.Equal(t, want, gemini.RetryDelay(ms))
	}
}
