package responses

import (
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// CheckpointMarker is what marks Codex CLI's own compaction request (see
// [PurposeOf]).
const CheckpointMarker = "CONTEXT CHECKPOINT COMPACTION"

// PurposeOf is the purpose of a request to /v1/responses: the core's
// rule ([wire.PurposeOf]: a last user message asking for a summary in
// <summary> tags) extended for Codex CLI. Codex compacts through
// /v1/responses/compact only with OpenAI's own provider; with any other
// provider it appends its summarisation prompt, which asks for a
// "context checkpoint compaction" and for no tags, as a last user
// message. So a request is also a compaction request when its last
// message is a user message with a text block holding
// [CheckpointMarker] (in any case). A request to /v1/responses/compact
// is a compaction request whatever it carries.
func PurposeOf(msgs []loop.Message) loop.Purpose {
	return wire.PurposeAlso(msgs, func(text string) bool {
		return strings.Contains(strings.ToUpper(text), CheckpointMarker)
	})
}
