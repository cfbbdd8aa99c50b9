package gemini

import (
	"fmt"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// The API's messages for contents out of order.
const (
	callTurnOrder     = "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
	responseTurnOrder = "Please ensure that function response turn comes immediately after a function call turn."
	responseCount     = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
)

// pair checks the order of function call and response turns as the API
// does, and sets each tool_result's ToolUseID to the tool_use it
// answers:
//
//   - a function call turn (a model turn with functionCall parts) comes
//     right after a user turn, and is followed by a function response
//     turn with as many functionResponse parts;
//   - a function response turn comes right after a function call turn;
//   - a response with an id answers the call of the previous turn with
//     that id; a response without one answers the first call of that
//     turn with its name not answered yet (calls and responses pair by
//     name, in order); a response that answers no call, and two calls
//     of one turn with the same id, are refused.
//
// A call without an id has one made up by readContent
// ("gemini_call_<content>_<part>", from 1), so every tool_use has an id.
func pair(prefix string, turns []turn) *wire.Rejection {
	for i := range turns {
		t := &turns[i]
		if len(t.calls) > 0 {
			if i == 0 || turns[i-1].msg.Role != loop.RoleUser {
				return refuse(callTurnOrder)
			}
			if i+1 == len(turns) || len(turns[i+1].results) != len(t.calls) {
				return refuse(responseCount)
			}
			seen := map[string]bool{}
			for _, k := range t.calls {
				id := t.msg.Blocks[k].ID
				if seen[id] {
					return refuse("Please ensure that the function call parts of %scontents[%d] have distinct ids: %q is repeated.", prefix, i, id)
				}
				seen[id] = true
			}
		}
		if len(t.results) == 0 {
			continue
		}
		if i == 0 || len(turns[i-1].calls) == 0 {
			return refuse(responseTurnOrder)
		}
		if rej := answer(prefix, i, t, &turns[i-1]); rej != nil {
			return rej
		}
	}
	return nil
}

// answer pairs the responses of t with the calls of prev.
func answer(prefix string, i int, t, prev *turn) *wire.Rejection {
	answered := make([]bool, len(prev.calls))
	for _, k := range t.results {
		r := &t.msg.Blocks[k]
		found := -1
		for n, c := range prev.calls {
			call := prev.msg.Blocks[c]
			if answered[n] {
				continue
			}
			if t.named[k] && call.ID == r.ToolUseID || !t.named[k] && call.Name == r.Name {
				found = n
				break
			}
		}
		if found < 0 {
			what := fmt.Sprintf("named %q", r.Name)
			if t.named[k] {
				what = fmt.Sprintf("with id %q", r.ToolUseID)
			}
			return refuse("Please ensure that every function response part answers a function call part of the function call turn: "+
				"%scontents[%d] answers no call %s.", prefix, i, what)
		}
		answered[found] = true
		r.ToolUseID, r.Name = prev.msg.Blocks[prev.calls[found]].ID, ""
	}
	return nil
}
