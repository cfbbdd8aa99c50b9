package wire_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// Deltas are at most DeltaBytes long and never split a character.
func TestPieces(t *testing.T) {
	assert.Nil(t, wire.Pieces(""))
	assert.Equal(t, []string{"abc"}, wire.Pieces("abc"))
	exact := strings.Repeat("a", wire.DeltaBytes)
	assert.Equal(t, []string{exact}, wire.Pieces(exact))
	assert.Equal(t, []string{exact, "b"}, wire.Pieces(exact+"b"))
	// "é" is two bytes: at 63 bytes of a it would straddle the cut
	s := strings.Repeat("a", wire.DeltaBytes-1) + "é" + "z"
	assert.Equal(t, []string{strings.Repeat("a", wire.DeltaBytes-1), "éz"}, wire.Pieces(s))
	// bytes that start no character are cut at the limit all the same
	junk := strings.Repeat("\x80", wire.DeltaBytes+6)
	assert.Equal(t, []string{junk[:wire.DeltaBytes], junk[wire.DeltaBytes:]}, wire.Pieces(junk))
	long := strings.Repeat("é", 100) // 200 bytes
	pieces := wire.Pieces(long)
	assert.Equal(t, long, strings.Join(pieces, ""))
	for _, p := range pieces {
		assert.LessOrEqual(t, len(p), wire.DeltaBytes)
		assert.True(t, strings.HasPrefix(p, "é"), "cut on a character boundary: %q", p)
	}
	assert.Len(t, pieces, 4, "64, 64, 64 and 8 bytes")
}

func TestCutToolUse(t *testing.T) {
	tool := func(input string) loop.Block { return loop.Block{Type: loop.BlockToolUse, Input: input} }
	assert.False(t, wire.CutToolUse(tool(`{"a":1}`)))
	assert.False(t, wire.CutToolUse(tool(`{}`)))
	assert.True(t, wire.CutToolUse(tool(`{"a":`)))
	assert.True(t, wire.CutToolUse(tool(`null`)), "null is no object")
	assert.True(t, wire.CutToolUse(tool(`[1]`)))
	assert.False(t, wire.CutToolUse(loop.Block{Type: loop.BlockText, Input: `{"a":`}), "only a tool_use is cut in its input")
}

func TestShape(t *testing.T) {
	assert.Equal(t, "user:", wire.Shape(loop.Message{Role: loop.RoleUser}))
	assert.Equal(t, "assistant:text+tool_use", wire.Shape(loop.Message{Role: loop.RoleAssistant,
		Blocks: []loop.Block{{Type: loop.BlockText}, {Type: loop.BlockToolUse}}}))
	assert.Equal(t, "user:tool_result", wire.Shape(loop.Message{Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockToolResult}}}))
}

// A message's hash is its role and content: the same content under
// another role, or the same bytes split differently between the two,
// is another message.
func TestHashMessage(t *testing.T) {
	assert.Equal(t, wire.HashMessage("user", []byte(`"hi"`)), wire.HashMessage("user", []byte(`"hi"`)))
	assert.NotEqual(t, wire.HashMessage("user", []byte(`"hi"`)), wire.HashMessage("assistant", []byte(`"hi"`)))
	assert.NotEqual(t, wire.HashMessage("user", []byte(`"hi"`)), wire.HashMessage("user", []byte(`"ho"`)))
	assert.NotEqual(t, wire.HashMessage("ab", nil), wire.HashMessage("a", []byte("b")))
}

func TestRawTokens(t *testing.T) {
	for n, want := range map[int]int{0: 3, 1: 4, 4: 4, 5: 5, 400: 103} {
		assert.Equal(t, want, wire.RawTokens(make([]byte, n)), "%d bytes", n)
	}
}

func TestRetryAfter(t *testing.T) {
	assert.Nil(t, wire.RetryAfter(nil))
	assert.Nil(t, wire.RetryAfter(&loop.RequestError{Kind: loop.KindRateLimited}))
	for ms, secs := range map[int]string{1: "1", 999: "1", 1000: "1", 1001: "2", 2500: "3"} {
		h := wire.RetryAfter(&loop.RequestError{Kind: loop.KindRateLimited, RetryAfterMS: ms})
		assert.Equal(t, http.Header{"Retry-After": {secs}, "Retry-After-Ms": {strconv.Itoa(ms)}}, h, "%d ms", ms)
	}
}

// A request is labelled by its purpose and answer; one whose purpose
// could not be read is "?".
func TestLabels(t *testing.T) {
	recs := []wire.Record{
		{Purpose: loop.PurposeMain, Answer: "text"},
		{Purpose: loop.PurposeCompact, Answer: "529"},
		{Answer: "rejected"},
		{Purpose: "other", Answer: "text"},
	}
	assert.Equal(t, []string{"M:text", "C:529", "?:rejected", "?:text"}, wire.Labels(recs))
	assert.Empty(t, wire.Labels(nil))
	assert.NotNil(t, wire.Labels(nil))
}

func TestRoles(t *testing.T) {
	assert.Equal(t, "", wire.Roles(nil))
	assert.Equal(t, "uau", wire.Roles([]loop.Message{{Role: loop.RoleUser}, {Role: loop.RoleAssistant}, {Role: loop.RoleUser}}))
}

// brokenWriter fails every write.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// Records are written one a line, "appended" always a list; a failed
// write or a bad line names the record.
func TestJSONLines(t *testing.T) {
	var buf strings.Builder
	assert.NoError(t, wire.WriteJSONL(&buf, []wire.Record{{Seq: 1, Answer: "text"}, {Seq: 2, Answer: "tool", Appended: []string{"user:text"}}}))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	assert.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"appended":[]`)
	assert.Contains(t, lines[1], `"appended":["user:text"]`)
	back, err := wire.ReadJSONL(strings.NewReader(buf.String()))
	assert.NoError(t, err)
	assert.Equal(t, []wire.Record{{Seq: 1, Answer: "text", Appended: []string{}}, {Seq: 2, Answer: "tool", Appended: []string{"user:text"}}}, back)

	err = wire.WriteJSONL(brokenWriter{}, []wire.Record{{Seq: 1}})
	assert.EqualError(t, err, "wire: record 1: disk full")

	back, err = wire.ReadJSONL(strings.NewReader(`{"seq":1,"answer":"text"}` + "\n" + `{"seq":"two"}`))
	assert.ErrorContains(t, err, "wire: record 2: ")
	assert.Len(t, back, 1, "what was read before the bad line")
	assert.Equal(t, []string{}, back[0].Appended, "a line without appended reads as an empty list")
	back, err = wire.ReadJSONL(strings.NewReader(""))
	assert.NoError(t, err)
	assert.Empty(t, back)
}

// A request is a compaction when its last message is a user message
// asking for a summary in tags, in a text block or a tool result's text.
func TestPurposeOfLastUserMessage(t *testing.T) {
	user := func(bs ...loop.Block) loop.Message { return loop.Message{Role: loop.RoleUser, Blocks: bs} }
	text := func(s string) loop.Block { return loop.Block{Type: loop.BlockText, Text: s} }
	result := loop.Block{Type: loop.BlockToolResult, Text: "Write it in <summary> tags."}
	assert.Equal(t, loop.PurposeCompact, wire.PurposeOf([]loop.Message{user(text("go"), result)}), "a tool result's text counts")
	assert.Equal(t, loop.PurposeCompact, wire.PurposeOf([]loop.Message{user(text("go"), text("Now a <summary> of it."))}), "any block of the last message")
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf([]loop.Message{user(loop.Block{Type: loop.BlockThinking, Text: "a <summary> please"})}), "not a thinking block")
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf([]loop.Message{user(text("<summary> first"))}))
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf([]loop.Message{user(text("\n <analysis>x</analysis> then <summary>"))}))
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf([]loop.Message{user(text("Summarise in tags."))}))

	asks := func(s string) bool { return strings.Contains(s, "CHECKPOINT") }
	assert.Equal(t, loop.PurposeCompact, wire.PurposeAlso([]loop.Message{user(text("a CHECKPOINT now"))}, asks))
	assert.Equal(t, loop.PurposeCompact, wire.PurposeAlso([]loop.Message{user(text("a <summary> now"))}, asks), "the shared rule still holds")
	assert.Equal(t, loop.PurposeMain, wire.PurposeAlso([]loop.Message{user(text("go"))}, asks))
	assert.Equal(t, loop.PurposeMain, wire.PurposeAlso([]loop.Message{user(loop.Block{Type: loop.BlockToolResult, Text: "CHECKPOINT"})}, asks),
		"the client's marker is read in text blocks only")
	assert.Equal(t, loop.PurposeMain, wire.PurposeAlso([]loop.Message{user(text("CHECKPOINT")), {Role: loop.RoleAssistant, Blocks: []loop.Block{text("ok")}}}, asks))
	assert.Equal(t, loop.PurposeMain, wire.PurposeAlso(nil, asks))
}
