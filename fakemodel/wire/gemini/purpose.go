package gemini

import (
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// SnapshotTag is what marks Gemini CLI's compression request (see
// [PurposeOf]).
const SnapshotTag = "<state_snapshot>"

// PurposeOf is the core's rule ([wire.PurposeOf]: a last user message
// asking for a summary in <summary> tags) extended for the Gemini
// clients: Gemini CLI compresses its history by asking, in the last user
// message, for a new or improved <state_snapshot>, and sends the
// snapshot back later as a user message that begins with it. So a
// request is also a compaction request when its last message is a user
// message with a text block that holds [SnapshotTag] but does not begin
// with it or with <scratchpad> (after white space): the request for a
// snapshot, and the check of one it just got, as opposed to a snapshot.
func PurposeOf(msgs []loop.Message) loop.Purpose {
	return wire.PurposeAlso(msgs, asksForSnapshot)
}

func asksForSnapshot(text string) bool {
	t := strings.TrimSpace(text)
	return strings.Contains(t, SnapshotTag) && !strings.HasPrefix(t, SnapshotTag) && !strings.HasPrefix(t, "<scratchpad>")
}
