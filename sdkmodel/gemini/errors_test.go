package gemini_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"google.golang.org/genai"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/gemini"
)

// Classify reads each of the API's errors into the loop's kind and
// status: Gemini's overload and prompt-too-long in the loop's words, an
// error object in a begun stream as stream_error.
func TestClassify(t *testing.T) {
	retry := []map[string]any{{"@type": "type.googleapis.com/google.rpc.Help"},
		{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}}
	tests := []struct {
		name   string
		err    error
		status int
		want   *loop.RequestError
	}{
		{"prompt too long", genai.APIError{Code: 400, Status: "INVALID_ARGUMENT",
			Message: "The input token count (1200345) exceeds the maximum number of tokens allowed (1048576)."}, 400,
			loop.PromptTooLongError(1200345, 1048576)},
		{"an image too large", genai.APIError{Code: 400, Message: "Inline data exceeds the maximum image size"}, 400,
			&loop.RequestError{Kind: loop.KindMediaTooLarge, Status: 400, Message: "Inline data exceeds the maximum image size"}},
		{"another 400", genai.APIError{Code: 400, Message: "Please use a valid role: user, model."}, 400,
			&loop.RequestError{Kind: loop.KindInvalidRequest, Status: 400, Message: "Please use a valid role: user, model."}},
		{"413", genai.APIError{Code: 413, Message: "too large"}, 413, &loop.RequestError{Kind: loop.KindRequestTooLarge, Status: 413, Message: "too large"}},
		{"429 with RetryInfo", genai.APIError{Code: 429, Message: "quota", Details: retry}, 429,
			&loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "quota", RetryAfterMS: 1500}},
		{"429 without", genai.APIError{Code: 429, Message: "quota"}, 429, &loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "quota"}},
		{"429 with a bad delay", genai.APIError{Code: 429, Message: "quota", Details: []map[string]any{
			{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "soon"}}}, 429,
			&loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "quota"}},
		{"503 is the overload", genai.APIError{Code: 503, Status: "UNAVAILABLE", Message: "The model is overloaded."}, 503,
			&loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "The model is overloaded."}},
		{"500", genai.APIError{Code: 500, Message: "internal"}, 500, &loop.RequestError{Kind: loop.KindServer, Status: 500, Message: "internal"}},
		{"504", genai.APIError{Code: 504, Message: "deadline"}, 504, &loop.RequestError{Kind: loop.KindServer, Status: 504, Message: "deadline"}},
		{"403", genai.APIError{Code: 403, Message: "denied"}, 403, &loop.RequestError{Kind: loop.KindOther, Status: 403, Message: "denied"}},
		{"no message", genai.APIError{Code: 403}, 403, &loop.RequestError{Kind: loop.KindOther, Status: 403, Message: "Forbidden"}},
		{"an error chunk in a stream", genai.APIError{Code: 500, Status: "INTERNAL", Message: "cut"}, 200,
			&loop.RequestError{Kind: loop.KindStream, Message: "cut"}},
		{"wrapped", fmt.Errorf("call: %w", genai.APIError{Code: 500, Message: "internal"}), 500,
			&loop.RequestError{Kind: loop.KindServer, Status: 500, Message: "internal"}},
		{"a pointer", &genai.APIError{Code: 500, Message: "internal"}, 500, &loop.RequestError{Kind: loop.KindServer, Status: 500, Message: "internal"}},
		{"a drop", io.ErrUnexpectedEOF, 200, &loop.RequestError{Kind: loop.KindConnection, Message: "unexpected EOF"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, gemini.Classify(tt.err, tt.status), tt.name)
	}
	assert.Nil(t, gemini.Classify(errors.New("iterateResponseStream: invalid stream chunk"), 200), "no API error, no connection")
}
