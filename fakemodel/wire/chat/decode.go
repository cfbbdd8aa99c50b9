package chat

import (
	"encoding/json"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// unparsable is the API's answer to a body that is not one JSON object.
func unparsable(detail string) *wire.Rejection {
	return &wire.Rejection{Type: InvalidRequestError, Message: "We could not parse the JSON body of your request. " +
		"(The API expects a JSON object in UTF-8; " + detail + ".)"}
}

// Decode implements [wire.API]: it reads a Chat Completions body into
// the loop's terms and checks it as the API does (see the package
// documentation for the rules). A refused body returns a
// [*wire.Rejection] naming the field as the API's "param", and what
// could be read.
func (API) Decode(_ wire.Route, body []byte, opts wire.DecodeOptions) (*wire.Decoded, error) {
	d, rej := decode(body, opts.Models)
	if rej != nil {
		return d, rej
	}
	return d, nil
}

// decode is Decode with the refusal typed.
func decode(body []byte, models []loop.ModelInfo) (*wire.Decoded, *wire.Rejection) {
	if err := wire.CheckText(body); err != nil {
		return nil, unparsable(err.Error())
	}
	if !json.Valid(body) {
		return nil, unparsable("the body is not valid JSON")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, unparsable("the body is " + wire.ValueKind(body))
	}
	d := &wire.Decoded{}
	model, rej := requiredString(top, "model", "model")
	if rej != nil {
		return d, rej
	}
	d.Request.Model = model
	if rej := decodeStream(top, d); rej != nil {
		return d, rej
	}
	caps, rej := decodeCaps(top)
	if rej != nil {
		return d, rej
	}
	if len(caps) > 0 {
		d.Request.MaxTokens = caps[len(caps)-1].value
	}
	raw, ok := top["messages"]
	if !ok || wire.IsNull(raw) {
		return d, missing("messages")
	}
	list, rej := array(raw, "messages")
	if rej != nil {
		return d, rej
	}
	if len(list) == 0 {
		return d, refuse("messages", codeEmptyArray, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	}
	var b builder
	for i, rm := range list {
		if rej := b.add(i, rm); rej != nil {
			return d, rej
		}
	}
	tools, systemTools, rej := decodeTools(top)
	if rej != nil {
		return d, rej
	}
	d.Request.Messages = b.msgs
	d.Request.Purpose = PurposeOf(b.msgs)
	d.Request.Tools = tools
	d.SystemTokens = b.system + systemTools
	d.Shapes = make([]string, len(b.msgs))
	d.Hashes = make([]uint64, len(b.msgs))
	for i, m := range b.msgs {
		d.Shapes[i] = wire.Shape(m)
		d.Hashes[i] = wire.HashMessage(b.roles[i], b.raws[i])
	}
	var est loop.CharEstimator
	input := d.SystemTokens
	for i := range b.msgs {
		b.msgs[i].Tokens = est.Estimate(b.msgs[i])
		input += b.msgs[i].Tokens
	}
	d.Request.InputTokens = input
	if rej := checkCaps(caps, model, models); rej != nil {
		return d, rej
	}
	if rej := checkPairing(b.turns); rej != nil {
		return d, rej
	}
	return d, nil
}

// decodeStream reads stream and stream_options.
func decodeStream(top map[string]json.RawMessage, d *wire.Decoded) *wire.Rejection {
	if raw, ok := top["stream"]; ok && !wire.IsNull(raw) {
		s, rej := boolean(raw, "stream")
		if rej != nil {
			return rej
		}
		d.Stream = s
	}
	d.Request.NonStreaming = !d.Stream
	raw, ok := top["stream_options"]
	if !ok || wire.IsNull(raw) {
		return nil
	}
	so, rej := object(raw, "stream_options")
	if rej != nil {
		return rej
	}
	if !d.Stream {
		return refuse("stream_options", "", "The 'stream_options' parameter is only allowed when 'stream' is enabled.")
	}
	if raw, ok := so["include_usage"]; ok && !wire.IsNull(raw) {
		include, rej := boolean(raw, "stream_options.include_usage")
		if rej != nil {
			return rej
		}
		d.Extra = options{includeUsage: include}
	}
	return nil
}

// options are what a request asks of its answer beyond the loop's
// terms; Decode leaves them in [wire.Decoded].Extra.
type options struct {
	// includeUsage is stream_options.include_usage: a streamed answer
	// ends with a chunk carrying the usage.
	includeUsage bool
}

// optionsOf is the options Decode left in d.
func optionsOf(d *wire.Decoded) options {
	o, _ := d.Extra.(options)
	return o
}

// outputCap is one output-token field the request set.
type outputCap struct {
	field string
	value int
}

// decodeCaps reads max_tokens and max_completion_tokens, in that order:
// the last one set is the cap (max_completion_tokens replaces the
// deprecated max_tokens).
func decodeCaps(top map[string]json.RawMessage) ([]outputCap, *wire.Rejection) {
	var caps []outputCap
	for _, field := range []string{"max_tokens", "max_completion_tokens"} {
		raw, ok := top[field]
		if !ok || wire.IsNull(raw) {
			continue
		}
		n, rej := integer(raw, field)
		if rej != nil {
			return nil, rej
		}
		if n < 1 {
			return nil, refuse(field, codeBelowMin, "Invalid '%s': integer below minimum value. Expected a value >= 1, but got %d instead.", field, n)
		}
		caps = append(caps, outputCap{field: field, value: n})
	}
	return caps, nil
}

// checkCaps refuses an output cap over the model's maximum, naming the
// field the request used.
func checkCaps(caps []outputCap, model string, models []loop.ModelInfo) *wire.Rejection {
	for _, m := range models {
		if m.Name != model || m.MaxOutputTokens <= 0 {
			continue
		}
		for _, c := range caps {
			if c.value > m.MaxOutputTokens {
				return refuse(c.field, codeInvalidValue, "%s is too large: %d. This model supports at most %d completion tokens, whereas you provided %d.",
					c.field, c.value, m.MaxOutputTokens, c.value)
			}
		}
	}
	return nil
}

// decodeTools reads the tool definitions: their names, and their size
// as the system tokens they add.
func decodeTools(top map[string]json.RawMessage) ([]string, int, *wire.Rejection) {
	raw, ok := top["tools"]
	if !ok || wire.IsNull(raw) {
		return []string{}, 0, nil
	}
	list, rej := array(raw, "tools")
	if rej != nil {
		return nil, 0, rej
	}
	names := make([]string, 0, len(list))
	tokens := 0
	for i, rt := range list {
		param := fmt.Sprintf("tools[%d]", i)
		t, rej := object(rt, param)
		if rej != nil {
			return nil, 0, rej
		}
		typ, rej := requiredString(t, "type", param+".type")
		if rej != nil {
			return nil, 0, rej
		}
		if typ != "function" && typ != "custom" {
			return nil, 0, refuse(param+".type", codeInvalidValue, "Invalid value: '%s'. Supported values are: 'function' and 'custom'.", typ)
		}
		fraw, ok := t[typ]
		if !ok || wire.IsNull(fraw) {
			return nil, 0, missing(param + "." + typ)
		}
		f, rej := object(fraw, param+"."+typ)
		if rej != nil {
			return nil, 0, rej
		}
		name, rej := requiredString(f, "name", param+"."+typ+".name")
		if rej != nil {
			return nil, 0, rej
		}
		names = append(names, name)
		tokens += wire.RawTokens(rt)
	}
	return names, tokens, nil
}
