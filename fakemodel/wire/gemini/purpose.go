package gemini

import (
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// SnapshotTag is what marks Gemini CLI's compression request (see
// [PurposeOf]).
const SnapshotTag = wire.SnapshotTag

// PurposeOf is the core's rule ([wire.PurposeOf]: a last user message
// asking for a summary in <summary> tags) extended for the Gemini
// clients: a request is also a compaction request when its last message
// is a user message with a text block that asks for a <state_snapshot>
// ([wire.AsksForSnapshot]), as Gemini CLI asks for one and checks the one
// it just got.
func PurposeOf(msgs []loop.Message) loop.Purpose {
	return wire.PurposeAlso(msgs, wire.AsksForSnapshot)
}
