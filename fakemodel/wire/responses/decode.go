package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// extra is what Decode passes to Reply: whether the request came to
// /v1/responses/compact, answered with the compaction object.
type extra struct{ compact bool }

// Compact reports whether d was read from a /v1/responses/compact
// request.
func Compact(d *wire.Decoded) bool {
	x, ok := d.Extra.(extra)
	return ok && x.compact
}

// parseError is the API's refusal of a body that is not a JSON object.
func parseError(why string) *wire.Rejection {
	return rejection("", "", "We could not parse the JSON body of your request. (%s)", why)
}

// Decode reads a request body for rt as the API reads it and checks it
// by the API's rules (see the package documentation).
func (API) Decode(rt wire.Route, body []byte, opts wire.DecodeOptions) (*wire.Decoded, error) {
	top, rej := parseTop(body)
	if rej != nil {
		return nil, rej
	}
	d := &wire.Decoded{Extra: extra{compact: rt.Endpoint == wire.EndpointCompact}}
	model, hasModel, rej := top.str("", "model")
	if rej != nil {
		return nil, rej
	}
	d.Request.Model = model
	maxOut, hasMax, rej := top.integer("max_output_tokens")
	if rej != nil {
		return d, rej
	}
	d.Request.MaxTokens = maxOut
	stream, rej := top.boolean("stream")
	if rej != nil {
		return d, rej
	}
	if rt.Endpoint == wire.EndpointGenerate {
		d.Stream = stream
	}
	d.Request.NonStreaming = !d.Stream
	if rt.Endpoint == wire.EndpointCompact {
		d.Request.Purpose = loop.PurposeCompact
	}
	count := rt.Endpoint == wire.EndpointCount // a count needs neither a model nor an input
	switch {
	case (!hasModel || model == "") && !count:
		return d, missing("model")
	case wire.IsNull(top["input"]) && !count:
		return d, missing("input")
	}
	raw := top["input"]
	if wire.IsNull(raw) {
		raw = json.RawMessage("[]")
	}
	conv, rej := readInput(raw)
	if rej != nil {
		return d, rej
	}
	d.Request.Messages, d.Shapes, d.Hashes = conv.msgs, conv.shapes, conv.hashes
	if rt.Endpoint != wire.EndpointCompact {
		d.Request.Purpose = PurposeOf(conv.msgs)
	}
	if rej := checkOutputCap(model, maxOut, hasMax, opts.Models); rej != nil {
		return d, rej
	}
	prev, _, rej := top.str("", "previous_response_id")
	if rej != nil {
		return d, rej
	}
	if prev != "" {
		return d, rejection("previous_response_id", CodePreviousResponseAbsent,
			"Previous response with id '%s' not found. (loopsim's fake server keeps no responses: send the whole input.)", prev)
	}
	if rej := checkPairing(conv); rej != nil {
		return d, rej
	}
	system, names, rej := instructionsAndTools(top, conv.systemTokens)
	if rej != nil {
		return d, rej
	}
	var est loop.CharEstimator
	input := system
	for i := range conv.msgs {
		conv.msgs[i].Tokens = est.Estimate(conv.msgs[i])
		input += conv.msgs[i].Tokens
	}
	d.SystemTokens, d.Request.InputTokens, d.Request.Tools = system, input, names
	return d, nil
}

// parseTop reads the body as the API parses it: UTF-8 holding one JSON
// object.
func parseTop(body []byte) (object, *wire.Rejection) {
	if !utf8.Valid(body) {
		return nil, parseError("the body is not valid UTF-8")
	}
	var top object
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&top); err != nil {
		return nil, parseError(fmt.Sprintf("not a JSON object: %v", err))
	}
	if dec.More() {
		return nil, parseError("data after the top-level object")
	}
	if top == nil {
		return nil, parseError("not a JSON object: null")
	}
	return top, nil
}

// checkOutputCap refuses a max_output_tokens, when given, below the
// API's minimum or above the maximum of the model among models.
func checkOutputCap(model string, maxOut int, hasMax bool, models []loop.ModelInfo) *wire.Rejection {
	if hasMax && maxOut < MinOutputTokens {
		return rejection("max_output_tokens", CodeBelowMinimum,
			"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= %d, but got %d instead.", MinOutputTokens, maxOut)
	}
	for _, m := range models {
		if m.Name == model && m.MaxOutputTokens > 0 && maxOut > m.MaxOutputTokens {
			return rejection("max_output_tokens", CodeAboveMaximum,
				"Invalid 'max_output_tokens': integer above maximum value. Expected a value <= %d, but got %d instead.", m.MaxOutputTokens, maxOut)
		}
	}
	return nil
}

// instructionsAndTools checks the instructions and the tool definitions
// and returns the tokens of the system part (system, the input's system
// messages, plus both) and the tools' names.
func instructionsAndTools(top object, system int) (int, []string, *wire.Rejection) {
	if raw := top["instructions"]; !wire.IsNull(raw) {
		if wire.ValueKind(raw) != "a string" && wire.ValueKind(raw) != "an array" {
			return 0, nil, wrongType("instructions", "a string or an array", raw)
		}
		system += wire.RawTokens(raw)
	}
	tools, rej := list("tools", top["tools"])
	if rej != nil {
		return 0, nil, rej
	}
	names := make([]string, 0, len(tools))
	for i, raw := range tools {
		name, rej := toolName(fmt.Sprintf("tools[%d]", i), raw)
		if rej != nil {
			return 0, nil, rej
		}
		names = append(names, name)
		system += wire.RawTokens(raw)
	}
	return system, names, nil
}

// toolName is a tool definition's name: a function's (or a custom
// tool's) name, else its type (web_search, local_shell, ...).
func toolName(param string, raw json.RawMessage) (string, *wire.Rejection) {
	o, rej := obj(param, raw)
	if rej != nil {
		return "", rej
	}
	typ, rej := o.need(param, "type")
	if rej != nil {
		return "", rej
	}
	name, ok, rej := o.str(param, "name")
	if rej != nil {
		return "", rej
	}
	if typ == "function" || typ == "custom" {
		if !ok || name == "" {
			return "", missing(join(param, "name"))
		}
		return name, nil
	}
	if ok && name != "" {
		return name, nil
	}
	return typ, nil
}
