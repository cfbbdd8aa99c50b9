package responses_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/responses"
	"github.com/loopsim/loopsim/loop"
)

var (
	generate = wire.Route{Endpoint: wire.EndpointGenerate}
	compact  = wire.Route{Endpoint: wire.EndpointCompact}
	models   = wire.DecodeOptions{Models: []loop.ModelInfo{{Name: "gpt-test", ContextWindow: 400_000, MaxOutputTokens: 128_000}}}
)

func decode(t *testing.T, rt wire.Route, body string) (*wire.Decoded, *wire.Rejection) {
	t.Helper()
	d, err := responses.API{}.Decode(rt, []byte(body), models)
	if err == nil {
		return d, nil
	}
	var rej *wire.Rejection
	require.True(t, errors.As(err, &rej), "a refusal is a *wire.Rejection, got %T", err)
	return d, rej
}

// A conversation as Codex sends it reads into the loop's messages: items
// grouped as the loop groups blocks, system and developer messages and
// the instructions and tools as system tokens.
func TestDecodeGroupsItemsIntoMessages(t *testing.T) {
	d, rej := decode(t, generate, `{"model":"gpt-test","stream":true,"max_output_tokens":1000,
		"instructions":"be brief","tools":[{"type":"function","name":"shell","parameters":{}},{"type":"web_search"}],
		"input":[
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"sandbox rules"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"env"}]},
		{"role":"user","content":"fix the test"},
		{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"plan"}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"looking"}]},
		{"type":"function_call","call_id":"call_1","name":"shell","arguments":"{\"cmd\":\"ls\"}"},
		{"type":"function_call","call_id":"call_2","name":"shell","arguments":"{\"cmd\":"},
		{"type":"function_call_output","call_id":"call_1","output":"a.go"},
		{"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"bad "},{"type":"input_text","text":"json"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"go on"}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"output_text","text":"b"}]}
		]}`)
	require.Nil(t, rej)
	assert.True(t, d.Stream)
	assert.False(t, d.Request.NonStreaming)
	assert.Equal(t, "gpt-test", d.Request.Model)
	assert.Equal(t, 1000, d.Request.MaxTokens)
	assert.Equal(t, []string{"shell", "web_search"}, d.Request.Tools)
	assert.Equal(t, loop.PurposeMain, d.Request.Purpose)
	assert.Equal(t, []string{"user:text", "user:text", "assistant:thinking+text+tool_use+tool_use",
		"user:tool_result+tool_result+text", "assistant:text+text"}, d.Shapes)
	msgs := d.Request.Messages
	assert.Equal(t, loop.Block{Type: loop.BlockThinking, Text: "plan"}, msgs[2].Blocks[0])
	assert.Equal(t, loop.Block{Type: loop.BlockToolUse, ID: "call_2", Name: "shell", Input: `{"cmd":`}, msgs[2].Blocks[3])
	assert.Equal(t, loop.Block{Type: loop.BlockToolResult, ToolUseID: "call_2", Text: "bad json"}, msgs[3].Blocks[1])
	assert.Len(t, d.Hashes, len(msgs))
	assert.Positive(t, d.SystemTokens)
	sum := d.SystemTokens
	for _, m := range msgs {
		assert.Positive(t, m.Tokens)
		sum += m.Tokens
	}
	assert.Equal(t, sum, d.Request.InputTokens, "input is the messages plus the system tokens")
}

func TestDecodeStringInputAndOptionalFields(t *testing.T) {
	d, rej := decode(t, generate, `{"model":"gpt-test","input":"hello","max_output_tokens":null,"stream":null,"store":false}`)
	require.Nil(t, rej)
	assert.Equal(t, []string{"user:text"}, d.Shapes)
	assert.Equal(t, 0, d.Request.MaxTokens, "no cap")
	assert.False(t, d.Stream)
	assert.True(t, d.Request.NonStreaming)
	assert.Zero(t, d.SystemTokens)
}

// The same messages hash the same, so the core sees what a later request
// kept; a changed message hashes differently.
func TestDecodeHashesMessages(t *testing.T) {
	a, _ := decode(t, generate, `{"model":"m","input":[{"role":"user","content":"one"},{"role":"assistant","content":[{"type":"output_text","text":"two"}]}]}`)
	b, _ := decode(t, generate, `{"model":"m","input":[{"role":"user","content":"one"},{"role":"assistant","content":[{"type":"output_text","text":"2"}]}]}`)
	require.Len(t, a.Hashes, 2)
	assert.Equal(t, a.Hashes[0], b.Hashes[0])
	assert.NotEqual(t, a.Hashes[1], b.Hashes[1])
}

// Purpose: /v1/responses/compact is a compaction whatever it carries;
// otherwise the wire rule reads the last message.
func TestDecodePurpose(t *testing.T) {
	ask := `{"model":"m","input":[{"role":"user","content":"go"},{"role":"user","content":"Summarise the conversation in <summary></summary> tags."}]}`
	d, _ := decode(t, generate, ask)
	assert.Equal(t, loop.PurposeCompact, d.Request.Purpose)
	assert.False(t, responses.Compact(d), "a compaction asked of /v1/responses")
	d, _ = decode(t, generate, `{"model":"m","input":"go"}`)
	assert.Equal(t, loop.PurposeMain, d.Request.Purpose)
	codex := `{"model":"m","input":[{"role":"user","content":"go"},{"role":"user","content":[{"type":"input_text","text":"You are performing a Context Checkpoint Compaction. Write a handoff summary."}]}]}`
	d, _ = decode(t, generate, codex)
	assert.Equal(t, loop.PurposeCompact, d.Request.Purpose, "Codex's own compaction prompt")
	d, _ = decode(t, generate, `{"model":"m","input":[{"role":"user","content":"A context checkpoint compaction ran."},{"role":"assistant","content":"ok"}]}`)
	assert.Equal(t, loop.PurposeMain, d.Request.Purpose, "the marker counts only in the last message, a user one")
	d, rej := decode(t, compact, `{"model":"m","input":[{"role":"user","content":"go"}],"stream":true}`)
	require.Nil(t, rej)
	assert.Equal(t, loop.PurposeCompact, d.Request.Purpose)
	assert.False(t, d.Stream, "the compact endpoint never streams")
	assert.True(t, responses.Compact(d))
}

// A compaction item read back is a user message carrying the summary.
func TestDecodeCompactionItem(t *testing.T) {
	d, rej := decode(t, generate, `{"model":"m","input":[{"role":"user","content":"go"},{"type":"compaction","id":"cmp_1","encrypted_content":"<summary>so far</summary>"},{"role":"user","content":"next"}]}`)
	require.Nil(t, rej)
	assert.Equal(t, []string{"user:text", "user:text", "user:text"}, d.Shapes)
	assert.Equal(t, "<summary>so far</summary>", d.Request.Messages[1].Blocks[0].Text)
}

func TestDecodeRefusesWhatTheAPIRefuses(t *testing.T) {
	const user = `{"role":"user","content":"go"}`
	call := func(id string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"shell","arguments":"{}"}`
	}
	output := func(id string) string { return `{"type":"function_call_output","call_id":"` + id + `","output":"ok"}` }
	cases := []struct {
		name, body, param, code, message string
	}{
		{"not JSON", `{"model":`, "", "", "We could not parse the JSON body of your request."},
		{"not an object", `[1]`, "", "", "We could not parse the JSON body of your request."},
		{"null", `null`, "", "", "We could not parse the JSON body of your request."},
		{"trailing data", `{"model":"m","input":"x"} {}`, "", "", "data after the top-level object"},
		{"invalid UTF-8", "{\"model\":\"m\",\"input\":\"\xff\"}", "", "", "not valid UTF-8"},
		{"no model", `{"input":"x"}`, "model", "missing_required_parameter", "Missing required parameter: 'model'."},
		{"empty model", `{"model":"","input":"x"}`, "model", "missing_required_parameter", "Missing required parameter: 'model'."},
		{"no input", `{"model":"m"}`, "input", "missing_required_parameter", "Missing required parameter: 'input'."},
		{"model a number", `{"model":4,"input":"x"}`, "model", "invalid_type", "Invalid type for 'model': expected a string, but got an integer instead."},
		{"max_output_tokens a string", `{"model":"m","input":"x","max_output_tokens":"9"}`, "max_output_tokens", "invalid_type",
			"Invalid type for 'max_output_tokens': expected an integer, but got a string instead."},
		{"max_output_tokens a decimal", `{"model":"m","input":"x","max_output_tokens":9.5}`, "max_output_tokens", "invalid_type",
			"Invalid type for 'max_output_tokens': expected an integer, but got a decimal instead."},
		{"stream a string", `{"model":"m","input":"x","stream":"yes"}`, "stream", "invalid_type",
			"Invalid type for 'stream': expected a boolean, but got a string instead."},
		{"input an object", `{"model":"m","input":{}}`, "input", "invalid_type",
			"Invalid type for 'input': expected a string or an array of input items, but got an object instead."},
		{"tools an object", `{"model":"m","input":"x","tools":{}}`, "tools", "invalid_type", "Invalid type for 'tools': expected an array"},
		{"function tool without a name", `{"model":"m","input":"x","tools":[{"type":"function"}]}`, "tools[0].name", "missing_required_parameter",
			"Missing required parameter: 'tools[0].name'."},
		{"max_output_tokens below 16", `{"model":"m","input":"x","max_output_tokens":15}`, "max_output_tokens", "integer_below_min_value",
			"Expected a value >= 16, but got 15 instead."},
		{"max_output_tokens over the model's maximum", `{"model":"gpt-test","input":"x","max_output_tokens":128001}`, "max_output_tokens",
			"integer_above_max_value", "Expected a value <= 128000, but got 128001 instead."},
		{"previous_response_id", `{"model":"m","input":"x","previous_response_id":"resp_1"}`, "previous_response_id",
			"previous_response_not_found", "Previous response with id 'resp_1' not found."},
		{"bad role", `{"model":"m","input":[{"role":"tool","content":"x"}]}`, "input[0].role", "invalid_value",
			"Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'."},
		{"item not an object", `{"model":"m","input":["x"]}`, "input[0]", "invalid_type", "Invalid type for 'input[0]': expected an object, but got a string instead."},
		{"item without type or role", `{"model":"m","input":[{"content":"x"}]}`, "input[0].type", "missing_required_parameter", "Missing required parameter: 'input[0].type'."},
		{"message without content", `{"model":"m","input":[{"role":"user"}]}`, "input[0].content", "missing_required_parameter", ""},
		{"content a number", `{"model":"m","input":[{"role":"user","content":3}]}`, "input[0].content", "invalid_type",
			"Invalid type for 'input[0].content': expected a string or an array, but got an integer instead."},
		{"input_text in an assistant message", `{"model":"m","input":[` + user + `,{"role":"assistant","content":[{"type":"input_text","text":"x"}]}]}`,
			"input[1].content[0].type", "invalid_value", "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'."},
		{"text part without text", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text"}]}]}`, "input[0].content[0].text", "missing_required_parameter", ""},
		{"function_call without call_id", `{"model":"m","input":[` + user + `,{"type":"function_call","name":"f","arguments":"{}"}]}`,
			"input[1].call_id", "missing_required_parameter", ""},
		{"arguments an object", `{"model":"m","input":[` + user + `,{"type":"function_call","call_id":"c","name":"f","arguments":{}}]}`,
			"input[1].arguments", "invalid_type", "expected a string, but got an object instead"},
		{"call without output", `{"model":"m","input":[` + user + `,` + call("call_1") + `]}`, "input", "", "No tool output found for function call call_1."},
		{"output without call", `{"model":"m","input":[` + user + `,` + output("call_9") + `]}`, "input", "",
			"No tool call found for function call output with call_id call_9."},
		{"two calls with one id", `{"model":"m","input":[` + user + `,` + call("c") + `,` + call("c") + `,` + output("c") + `]}`,
			"input[2].call_id", "invalid_value", "Duplicate value for 'call_id' of c in input."},
		{"two outputs for one call", `{"model":"m","input":[` + user + `,` + call("c") + `,` + output("c") + `,` + output("c") + `]}`,
			"input[3].call_id", "invalid_value", "Duplicate function call output for call_id c in input."},
		{"output without output", `{"model":"m","input":[` + user + `,` + call("c") + `,{"type":"function_call_output","call_id":"c"}]}`,
			"input[2].output", "missing_required_parameter", ""},
		{"item reference", `{"model":"m","input":[{"type":"item_reference","id":"msg_1"}]}`, "input[0].id", "previous_response_not_found", "keeps no items"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, rej := decode(t, generate, c.body)
			require.NotNil(t, rej, "accepted")
			assert.Equal(t, c.param, rej.Param)
			assert.Equal(t, c.code, rej.Code)
			assert.Contains(t, rej.Message, c.message)
			assert.Equal(t, responses.InvalidRequestError, rej.Type)
			assert.Zero(t, rej.Status, "a 400")
		})
	}
}

// A refused request still carries what could be read, for the record.
func TestDecodeKeepsWhatItReadOnARefusal(t *testing.T) {
	d, rej := decode(t, generate, `{"model":"gpt-test","max_output_tokens":500,"stream":true,"input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}`)
	require.NotNil(t, rej)
	require.NotNil(t, d)
	assert.Equal(t, "gpt-test", d.Request.Model)
	assert.Equal(t, 500, d.Request.MaxTokens)
	assert.True(t, d.Stream)
	assert.Equal(t, []string{"user:text", "assistant:tool_use"}, d.Shapes)
}

func TestRoute(t *testing.T) {
	for path, want := range map[string]wire.Endpoint{
		"/v1/responses": wire.EndpointGenerate, "/v1/responses/compact": wire.EndpointCompact,
		"/v1/responses/input_tokens": wire.EndpointCount,
	} {
		rt, ok := responses.API{}.Route(newRequest(path))
		assert.True(t, ok, path)
		assert.Equal(t, want, rt.Endpoint, path)
	}
	for _, path := range []string{"/v1/messages", "/v1/chat/completions", "/responses", "/v1/responses/x"} {
		_, ok := responses.API{}.Route(newRequest(path))
		assert.False(t, ok, path)
	}
}
