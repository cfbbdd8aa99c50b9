package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// Every refusal is a 400 INVALID_ARGUMENT in the API's words, naming the
// field in its snake_case path where a field is wrong. It runs over 80
// lines for its table: one line a refusal.
func TestDecodeRefusesAsTheAPIDoes(t *testing.T) {
	withCap := func(n any) obj {
		b := request(user(text("hi")))
		b["generationConfig"] = obj{"maxOutputTokens": n}
		return b
	}
	tests := []struct {
		name string
		body any
		want string
	}{
		{"not JSON", []byte(`{"contents": [`), "Invalid JSON payload received. Unexpected end of string."},
		{"a bad token", []byte(`{"contents": x}`), "Invalid JSON payload received. Unexpected token at byte 14."},
		{"data after the object", []byte(`{"contents": []} {}`), "Invalid JSON payload received. Unexpected token at byte 18."},
		{"not an object", []byte(`[1]`), "Invalid JSON payload received. Expected an object."},
		{"null", []byte(`null`), "Invalid JSON payload received. Expected an object."},
		{"invalid UTF-8", []byte("{\"contents\":[{\"parts\":[{\"text\":\"\xff\"}]}]}"), "Invalid JSON payload received. Invalid UTF-8 in string."},
		{"no contents", obj{}, "* GenerateContentRequest.contents: contents is not specified"},
		{"empty contents", obj{"contents": arr{}}, "* GenerateContentRequest.contents: contents is not specified"},
		{"contents of the wrong type", obj{"contents": "hi"},
			`Invalid value at 'contents' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), "hi"`},
		{"a content of the wrong type", obj{"contents": arr{"hi"}},
			`Invalid value at 'contents[0]' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), "hi"`},
		{"no parts", request(obj{"role": "user"}), "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty."},
		{"a role of the wrong type", request(obj{"role": 1, "parts": arr{text("hi")}}), "Invalid value at 'contents[0].role' (TYPE_STRING), 1"},
		{"an unknown role", request(obj{"role": "assistant", "parts": arr{text("hi")}}), "Please use a valid role: user, model."},
		{"text of the wrong type", request(user(obj{"text": 5})), "Invalid value at 'contents[0].parts[0].text' (TYPE_STRING), 5"},
		{"thought of the wrong type", request(user(obj{"text": "x", "thought": "yes"})), `Invalid value at 'contents[0].parts[0].thought' (TYPE_BOOL), "yes"`},
		{"a signature that is not base64", request(user(obj{"text": "x", "thoughtSignature": "%%%"})),
			`Invalid value at 'contents[0].parts[0].thought_signature' (TYPE_BYTES), "%%%"`},
		{"a part without data", request(user(obj{"thought": true})),
			"* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field"},
		{"a part with two data", request(user(obj{"text": "x", "inlineData": obj{}})),
			"Invalid JSON payload received. Oneof field 'data' is already set. Cannot set 'inlineData'"},
		{"args that are not an object", request(user(text("go")), model(obj{"functionCall": obj{"name": "Read", "args": "a.go"}})),
			`Invalid value at 'contents[1].parts[0].function_call.args' (type.googleapis.com/google.protobuf.Struct), "a.go"`},
		{"a call without a name", request(user(text("go")), model(obj{"functionCall": obj{"args": obj{}}})),
			"* GenerateContentRequest.contents[1].parts[0].function_call.name: Name cannot be empty."},
		{"a call in a user turn", request(user(call("c", "Read", nil))),
			"Please ensure that function call parts are in model turns only: contents[0].parts[0] is a user turn's."},
		{"a response in a model turn", request(user(text("go")), model(result("c", "Read", obj{}))),
			"Please ensure that function response parts are in user turns only: contents[1].parts[0] is a model turn's."},
		{"a call turn first", request(model(call("c", "Read", nil)), user(result("c", "Read", obj{}))),
			"Please ensure that function call turn comes immediately after a user turn or after a function response turn."},
		{"a call turn after a model turn", request(user(text("go")), model(text("ok")), model(call("c", "Read", nil)), user(result("c", "Read", obj{}))),
			"Please ensure that function call turn comes immediately after a user turn or after a function response turn."},
		{"a call never answered", request(user(text("go")), model(call("c", "Read", nil)), user(text("never mind"))),
			"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."},
		{"a call turn last", request(user(text("go")), model(call("c", "Read", nil))),
			"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."},
		{"one response for two calls", request(user(text("go")), model(call("a", "Read", nil), call("b", "Read", nil)), user(result("a", "Read", obj{}))),
			"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."},
		{"a response turn after a user turn", request(user(text("go")), user(result("c", "Read", obj{}))),
			"Please ensure that function response turn comes immediately after a function call turn."},
		{"a response turn first", request(user(result("c", "Read", obj{}))),
			"Please ensure that function response turn comes immediately after a function call turn."},
		{"a response to no call, by id", request(user(text("go")), model(call("a", "Read", nil)), user(result("b", "Read", obj{}))),
			`Please ensure that every function response part answers a function call part of the function call turn: contents[2] answers no call with id "b".`},
		{"a response to no call, by name", request(user(text("go")), model(call("", "Read", nil)), user(result("", "Bash", obj{}))),
			`Please ensure that every function response part answers a function call part of the function call turn: contents[2] answers no call named "Bash".`},
		{"two responses to one call", request(user(text("go")), model(call("a", "Read", nil), call("b", "Read", nil)),
			user(result("a", "Read", obj{}), result("a", "Read", obj{}))),
			`Please ensure that every function response part answers a function call part of the function call turn: contents[2] answers no call with id "a".`},
		{"two calls with one id", request(user(text("go")), model(call("a", "Read", nil), call("a", "Bash", nil)),
			user(result("a", "Read", obj{}), result("a", "Bash", obj{}))),
			`Please ensure that the function call parts of contents[1] have distinct ids: "a" is repeated.`},
		{"a response that is not an object", request(user(text("go")), model(call("a", "Read", nil)),
			user(obj{"functionResponse": obj{"name": "Read", "response": arr{}}})),
			`Invalid value at 'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), []`},
		{"a cap of the wrong type", withCap("many"), `Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32), "many"`},
		{"a cap that is not whole", withCap(1.5), `Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32), 1.5`},
		{"a cap over the model's maximum", withCap(8193),
			"Unable to submit request because it has a maxOutputTokens value of 8193 but the supported range is from 1 (inclusive) to 8193 (exclusive). Update the value and try again."},
		{"a negative cap", withCap(-1),
			"Unable to submit request because it has a maxOutputTokens value of -1 but the supported range is from 1 (inclusive) to 8193 (exclusive). Update the value and try again."},
		{"a config of the wrong type", obj{"contents": arr{user(text("hi"))}, "generationConfig": arr{}},
			`Invalid value at 'generation_config' (type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig), []`},
		{"a system instruction of the wrong type", obj{"contents": arr{user(text("hi"))}, "systemInstruction": "be brief"},
			`Invalid value at 'system_instruction' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), "be brief"`},
		{"a declaration without a name", obj{"contents": arr{user(text("hi"))}, "tools": arr{obj{"functionDeclarations": arr{obj{"description": "x"}}}}},
			"* GenerateContentRequest.tools[0].function_declarations[0].name: Name cannot be empty."},
		{"a long wrong value is cut", request(user(obj{"text": arr{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}})),
			`Invalid value at 'contents[0].parts[0].text' (TYPE_STRING), ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode(t, generate, tt.body)
			require.Error(t, err)
			var rj *wire.Rejection
			require.ErrorAs(t, err, &rj)
			assert.Equal(t, tt.want, rj.Message)
			assert.Zero(t, rj.Status, "a 400")
			ans := api.Error(&wire.Failure{Rejection: rj})
			assert.Equal(t, 400, ans.Status)
			assert.Equal(t, map[string]any{"error": map[string]any{"code": float64(400), "message": tt.want, "status": "INVALID_ARGUMENT"}},
				roundTrip(t, ans.Body))
		})
	}
}

// A refused request still carries what could be read of it, for the
// record: the model and cap always, the messages once all were read.
func TestARefusalKeepsWhatWasRead(t *testing.T) {
	b := request(user(text("go")), model(call("c", "Read", nil)), user(text("never mind")))
	b["generationConfig"] = obj{"maxOutputTokens": 100}
	d, err := decode(t, generate, b)
	require.Error(t, err)
	require.NotNil(t, d)
	assert.Equal(t, "gemini-test", d.Request.Model)
	assert.Equal(t, 100, d.Request.MaxTokens)

	d, err = decode(t, generate, withMax(request(user(text("hi"))), 9000))
	require.Error(t, err)
	require.NotNil(t, d)
	assert.Len(t, d.Request.Messages, 1, "messages read before the cap was checked")

	d, err = decode(t, generate, []byte(`{`))
	require.Error(t, err)
	assert.Nil(t, d, "nothing could be read")
}

func withMax(b obj, n int) obj {
	b["generationConfig"] = obj{"maxOutputTokens": n}
	return b
}
