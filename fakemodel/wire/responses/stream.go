package responses

import (
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// events writes a response's events, numbering them.
type events struct {
	s   *wire.Stream
	seq int
}

// send writes one event of type typ: fields plus type and
// sequence_number.
func (e *events) send(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = e.seq
	e.seq++
	e.s.Event(typ, fields)
}

// Stream implements [wire.API]: response.created, response.in_progress,
// each block's item events, then response.completed or
// response.incomplete for a reply, response.failed for an error (a tool
// call the failure cut is left open: its arguments' deltas, no done
// events; so is a block the failure came inside of, wire.Answer.Cut),
// nothing more for a drop or an abort.
func (a API) Stream(s *wire.Stream, d *wire.Decoded, ans *wire.Answer) {
	e := &events{s: s}
	e.send("response.created", map[string]any{"response": response(d, ans, statusInProgress, nil)})
	e.send("response.in_progress", map[string]any{"response": response(d, ans, statusInProgress, nil)})
	done := make([]itemJSON, 0, len(ans.Blocks))
	for i, b := range ans.Blocks {
		open := ans.Outcome == wire.OutcomeError && i == len(ans.Blocks)-1 && wire.CutToolUse(b)
		st := statusCompleted
		if ans.Outcome == wire.OutcomeReply && finalStatus(ans) == statusIncomplete && i == len(ans.Blocks)-1 {
			st = statusIncomplete
		}
		e.item(ans.Seq, i, b, st, open)
		if !open {
			done = append(done, item(ans.Seq, i, b, st))
		}
	}
	if ans.Cut != nil {
		e.item(ans.Seq, len(ans.Blocks), *ans.Cut, statusInProgress, true)
	}
	switch ans.Outcome {
	case wire.OutcomeReply:
		st := finalStatus(ans)
		name := "response.completed"
		if st == statusIncomplete {
			name = "response.incomplete"
		}
		e.send(name, map[string]any{"response": response(d, ans, st, done)})
	case wire.OutcomeError:
		r := response(d, ans, statusFailed, done)
		if ans.Err != nil {
			r.Error = &errorJSON{Code: a.streamCode(ans.Err), Message: ans.Err.Message}
		} else {
			r.Error = &errorJSON{Code: CodeServerError, Message: "the stream failed"}
		}
		e.send("response.failed", map[string]any{"response": r})
	}
	s.Flush()
}

// item writes one output item's events: added, its content's deltas and
// done events, and done; an item left open stops after its deltas.
func (e *events) item(seq, i int, b loop.Block, status string, open bool) {
	id := started(seq, i, b).ID
	e.send("response.output_item.added", map[string]any{"output_index": i, "item": started(seq, i, b)})
	switch b.Type {
	case loop.BlockThinking:
		for _, p := range wire.Pieces(b.Text) {
			e.send("response.reasoning_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": p})
		}
		e.send("response.reasoning_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": b.Text})
	case loop.BlockToolUse:
		for _, p := range wire.Pieces(b.Input) {
			e.send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": p})
		}
		if open {
			return
		}
		e.send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "name": b.Name, "arguments": b.Input})
	default:
		part := map[string]any{"item_id": id, "output_index": i, "content_index": 0}
		e.send("response.content_part.added", with(part, "part", outputText("")))
		for _, p := range wire.Pieces(b.Text) {
			e.send("response.output_text.delta", with(with(part, "delta", p), "logprobs", []any{}))
		}
		if open {
			return
		}
		e.send("response.output_text.done", with(with(part, "text", b.Text), "logprobs", []any{}))
		e.send("response.content_part.done", with(part, "part", outputText(b.Text)))
	}
	e.send("response.output_item.done", map[string]any{"output_index": i, "item": item(seq, i, b, status)})
}

// with is a copy of m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, x := range m {
		out[k] = x
	}
	out[key] = v
	return out
}
