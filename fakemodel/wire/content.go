package wire

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/loopsim/loopsim/loop"
)

// DeltaBytes is the most a streamed delta carries: text, thinking and
// tool-call arguments are sent in pieces of at most this many bytes.
const DeltaBytes = 64

// Pieces cuts s into chunks of at most [DeltaBytes], on rune boundaries.
func Pieces(s string) []string {
	var out []string
	for len(s) > DeltaBytes {
		cut := DeltaBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			cut = DeltaBytes
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// CutToolUse reports whether b is a tool_use whose input is not a JSON
// object: a step that fails the stream cut it inside its input.
func CutToolUse(b loop.Block) bool {
	var obj map[string]json.RawMessage
	return b.Type == loop.BlockToolUse && (json.Unmarshal([]byte(b.Input), &obj) != nil || obj == nil)
}

// Shape is a message's role and block types, "assistant:text+tool_use",
// "user:tool_result"; a user message the agent injected cannot be told
// from one the user typed.
func Shape(m loop.Message) string {
	types := make([]string, len(m.Blocks))
	for i, b := range m.Blocks {
		types[i] = string(b.Type)
	}
	if len(types) == 0 {
		return string(m.Role) + ":"
	}
	return string(m.Role) + ":" + strings.Join(types, "+")
}

// HashMessage identifies a message by its role and its content as the
// API sent it (raw JSON), so a later request that carries the same
// message is seen to keep it.
func HashMessage(role string, raw []byte) uint64 {
	h := fnv.New64a()
	_, _ = io.WriteString(h, role)
	_, _ = h.Write([]byte{0})
	_, _ = h.Write(raw)
	return h.Sum64()
}

// RawTokens estimates the tokens of a part of a request the loop does not
// see as messages (a system prompt, a tool definition) from its JSON:
// four bytes to a token plus a small overhead.
func RawTokens(raw []byte) int { return (len(raw)+3)/4 + 3 }
