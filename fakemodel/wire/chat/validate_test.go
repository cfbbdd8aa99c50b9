package chat_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// Each body the API refuses is refused with its param, code and message,
// and what could be read.
func TestDecodeRefusesAsTheAPIDoes(t *testing.T) {
	cases := []struct {
		name    string
		b       any
		param   string
		code    string
		message string
		read    bool // a Decoded comes back
	}{
		{"not JSON", []byte(`{"model":`), "", "", "We could not parse the JSON body of your request. (The API expects a JSON object in UTF-8; the body is not valid JSON.)", false},
		{"not an object", []byte(`[1]`), "", "", "We could not parse the JSON body of your request. (The API expects a JSON object in UTF-8; the body is an array.)", false},
		{"two objects", []byte(`{} {}`), "", "", "We could not parse the JSON body of your request. (The API expects a JSON object in UTF-8; the body is not valid JSON.)", false},
		{"invalid UTF-8", []byte("{\"model\":\"\xff\"}"), "", "", "We could not parse the JSON body of your request. (The API expects a JSON object in UTF-8; invalid utf-8 encoding in string: line 1 column 11 (char 10).)", false},
		{"half a surrogate pair", []byte(`{"model":"\ud800"}`), "", "", "We could not parse the JSON body of your request. (The API expects a JSON object in UTF-8; no low surrogate in string: line 1 column 11 (char 10).)", false},
		{"no model", request(user("x")).without("model"), "model", "missing_required_parameter", "Missing required parameter: 'model'.", true},
		{"model a number", request(user("x")).with("model", 4), "model", "invalid_type", "Invalid type for 'model': expected a string, but got an integer instead.", true},
		{"no messages", request().without("messages"), "messages", "missing_required_parameter", "Missing required parameter: 'messages'.", true},
		{"empty messages", request(), "messages", "empty_array", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", true},
		{"messages an object", request().with("messages", map[string]any{}), "messages", "invalid_type", "Invalid type for 'messages': expected an array, but got an object instead.", true},
		{"max_tokens a string", request(user("x")).with("max_tokens", "10"), "max_tokens", "invalid_type", "Invalid type for 'max_tokens': expected an integer, but got a string instead.", true},
		{"max_tokens a decimal", request(user("x")).with("max_tokens", 1.5), "max_tokens", "invalid_type", "Invalid type for 'max_tokens': expected an integer, but got a decimal instead.", true},
		{"max_tokens 0", request(user("x")).with("max_tokens", 0), "max_tokens", "integer_below_min_value", "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead.", true},
		{"max_tokens over the model", request(user("x")).with("max_tokens", 20_000), "max_tokens", "invalid_value", "max_tokens is too large: 20000. This model supports at most 16384 completion tokens, whereas you provided 20000.", true},
		{"max_completion_tokens over the model", request(user("x")).with("max_completion_tokens", 16_385), "max_completion_tokens", "invalid_value", "max_completion_tokens is too large: 16385. This model supports at most 16384 completion tokens, whereas you provided 16385.", true},
		{"stream a string", request(user("x")).with("stream", "yes"), "stream", "invalid_type", "Invalid type for 'stream': expected a boolean, but got a string instead.", true},
		{"stream_options without stream", request(user("x")).with("stream_options", map[string]any{"include_usage": true}), "stream_options", "", "The 'stream_options' parameter is only allowed when 'stream' is enabled.", true},
		{"include_usage a number", request(user("x")).with("stream", true).with("stream_options", map[string]any{"include_usage": 1}), "stream_options.include_usage", "invalid_type", "Invalid type for 'stream_options.include_usage': expected a boolean, but got an integer instead.", true},
		{"message a string", request().with("messages", []any{"hi"}), "messages[0]", "invalid_type", "Invalid type for 'messages[0]': expected an object, but got a string instead.", true},
		{"no role", request(map[string]any{"content": "x"}), "messages[0].role", "missing_required_parameter", "Missing required parameter: 'messages[0].role'.", true},
		{"unknown role", request(map[string]any{"role": "robot", "content": "x"}), "messages[0].role", "invalid_value", "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", true},
		{"no content", request(map[string]any{"role": "user"}), "messages[0].content", "missing_required_parameter", "Missing required parameter: 'messages[0].content'.", true},
		{"content a number", request(map[string]any{"role": "user", "content": 3}), "messages[0].content", "invalid_type", "Invalid type for 'messages[0].content': expected one of a string or array of objects, but got an integer instead.", true},
		{"content empty array", request(map[string]any{"role": "user", "content": []any{}}), "messages[0].content", "empty_array", "Invalid 'messages[0].content': empty array. Expected an array with minimum length 1, but got an empty array instead.", true},
		{"unknown part", request(map[string]any{"role": "user", "content": []any{map[string]any{"type": "video"}}}), "messages[0].content[0].type", "invalid_value", "Invalid value: 'video'. Supported values are: 'text', 'image_url', 'input_audio', and 'file'.", true},
		{"text part without text", request(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text"}}}), "messages[0].content[0].text", "missing_required_parameter", "Missing required parameter: 'messages[0].content[0].text'.", true},
		{"image part in a system message", request(map[string]any{"role": "system", "content": []any{map[string]any{"type": "image_url"}}}, user("x")), "messages[0].content[0].type", "invalid_value", "Invalid value: 'image_url'. Supported values are: 'text'.", true},
		{"assistant without content or calls", request(user("x"), map[string]any{"role": "assistant"}), "messages[1].content", "", "Invalid value for 'content': expected a string, got null.", true},
		{"tool call without id", request(user("x"), map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"type": "function", "function": map[string]any{"name": "R", "arguments": "{}"}}}}), "messages[1].tool_calls[0].id", "missing_required_parameter", "Missing required parameter: 'messages[1].tool_calls[0].id'.", true},
		{"tool call arguments an object", request(user("x"), map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "R", "arguments": map[string]any{}}}}}), "messages[1].tool_calls[0].function.arguments", "invalid_type", "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.", true},
		{"tool call of an unknown type", request(user("x"), map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c", "type": "magic"}}}), "messages[1].tool_calls[0].type", "invalid_value", "Invalid value: 'magic'. Supported values are: 'function' and 'custom'.", true},
		{"duplicate tool call ids", request(user("x"), calls("c1", "c1"), toolMsg("c1", "r")), "messages[1].tool_calls[1].id", "invalid_value", "Invalid 'messages[1].tool_calls[1].id': duplicate tool call id 'c1'; each tool call of a message needs its own id.", true},
		{"tool message without tool_call_id", request(user("x"), calls("c1"), map[string]any{"role": "tool", "content": "r"}), "messages[2].tool_call_id", "missing_required_parameter", "Missing required parameter: 'messages[2].tool_call_id'.", true},
		{"call not answered", request(user("x"), calls("c1", "c2"), toolMsg("c1", "r"), user("y")), "messages.[1].role", "", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c2", true},
		{"call not answered at the end", request(user("x"), calls("c1")), "messages.[1].role", "", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c1", true},
		{"tool message answering nothing", request(user("x"), toolMsg("c9", "r")), "messages.[1].role", "", "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.", true},
		{"tool message answering another id", request(user("x"), calls("c1"), toolMsg("c2", "r")), "messages.[2].role", "", "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.", true},
		{"two answers for one call", request(user("x"), calls("c1"), toolMsg("c1", "r"), toolMsg("c1", "again")), "messages.[3].role", "", "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.", true},
		{"tools not an array", request(user("x")).with("tools", map[string]any{}), "tools", "invalid_type", "Invalid type for 'tools': expected an array, but got an object instead.", true},
		{"tool without a name", request(user("x")).with("tools", []any{map[string]any{"type": "function", "function": map[string]any{}}}), "tools[0].function.name", "missing_required_parameter", "Missing required parameter: 'tools[0].function.name'.", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := decode(t, c.b)
			var rej *wire.Rejection
			require.True(t, errors.As(err, &rej), "refused: %v", err)
			assert.Equal(t, c.message, rej.Message)
			assert.Equal(t, c.param, rej.Param)
			assert.Equal(t, c.code, rej.Code)
			assert.Equal(t, "invalid_request_error", rej.Type)
			assert.Zero(t, rej.Status, "400")
			assert.Equal(t, c.read, d != nil)
		})
	}
}

// A refused request whose messages could all be read carries them, so
// that the record shows the conversation that broke the rule.
func TestRefusedRequestCarriesWhatWasRead(t *testing.T) {
	d, err := decode(t, request(user("x"), calls("c1"), user("y")).with("max_tokens", 77).with("stream", true))
	require.Error(t, err)
	require.NotNil(t, d)
	assert.Equal(t, "gpt-test", d.Request.Model)
	assert.Equal(t, 77, d.Request.MaxTokens)
	assert.True(t, d.Stream)
	assert.Len(t, d.Request.Messages, 3)
}

// Fields the server does not read are ignored, whatever they hold; null
// is as good as absent for the optional fields.
func TestDecodeIgnoresOtherFields(t *testing.T) {
	b := request(user("x")).with("temperature", "hot").with("tool_choice", "auto").with("n", 1).
		with("stream", nil).with("tools", nil).with("stream_options", nil)
	_, err := decode(t, b)
	require.NoError(t, err)
}
