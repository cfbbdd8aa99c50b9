package transcript_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/transcript"
)

func kinds(s *transcript.Session) string {
	var b strings.Builder
	for _, e := range s.Events {
		b.WriteByte("CKP"[e.Kind])
	}
	return b.String()
}

// TestClaudeCode: a split response is one call with its largest output;
// sidechain, tool-result, compact-summary and synthetic lines are no
// prompts nor calls; injected lines are counted by kind; bad lines are
// counted and the rest is read.
func TestClaudeCode(t *testing.T) {
	s, err := transcript.ReadFile("testdata/claude.jsonl")
	require.NoError(t, err)
	assert.Equal(t, transcript.ClaudeCode, s.Format)
	assert.Equal(t, "PCCKCP", kinds(s))
	calls := s.Calls()
	require.Len(t, calls, 3)
	assert.Equal(t, transcript.Call{Model: "claude-test-1", Usage: transcript.Usage{Input: 3, CacheWrite: 20000, Output: 120}, Tools: 1}, calls[0])
	assert.Equal(t, 20605, calls[1].Usage.Context())
	assert.Equal(t, 2, calls[1].Tools)
	assert.Equal(t, 1, calls[1].Rereads, "a.go read a second time")
	assert.Equal(t, "claude-other-2", calls[2].Model)
	assert.Equal(t, "claude-test-1", s.Model())
	assert.Equal(t, transcript.Compaction{Auto: true, PreTokens: 20905}, s.Events[3].Compaction)
	assert.Equal(t, 1, s.Malformed)
	assert.Equal(t, 1, s.Foreign)
	assert.Equal(t, 9, s.FirstBad)
	assert.Equal(t, 1, s.Sidechain)
	assert.Equal(t, 19, s.Lines)
	want := map[transcript.Injected]int{transcript.TaskNotification: 1, transcript.CommandEcho: 1, transcript.Meta: 1, transcript.Interruption: 1}
	for _, k := range transcript.InjectedKinds() {
		assert.Equal(t, want[k], s.Injected[k], k.String())
	}
}

// TestCodex: a call per change of the total usage, its tools those
// logged since the call before, the window from the log; the
// compaction starts from the last call's context.
func TestCodex(t *testing.T) {
	s, err := transcript.ReadFile("testdata/codex.jsonl")
	require.NoError(t, err)
	assert.Equal(t, transcript.Codex, s.Format)
	assert.Equal(t, "PCCKC", kinds(s))
	assert.Equal(t, 100_000, s.Window)
	calls := s.Calls()
	require.Len(t, calls, 3)
	assert.Equal(t, transcript.Call{Model: "gpt-test-codex", Usage: transcript.Usage{Input: 8000, CacheRead: 2000, Output: 200}, Tools: 1}, calls[0])
	assert.Equal(t, 11000, calls[1].Usage.Context())
	assert.Equal(t, 2, calls[1].Tools)
	assert.Equal(t, 120, calls[1].Usage.Reasoning)
	assert.Equal(t, transcript.Compaction{Auto: true, PreTokens: 11000}, s.Events[3].Compaction)
	assert.Equal(t, 3000, calls[2].Usage.Context())
	assert.Equal(t, 1, s.Foreign, "the unknown line type")
	assert.Equal(t, 1, s.Malformed, "the truncated last line")
}

// TestForeignAndEmpty: a log of neither format is all foreign lines, not
// an error; an empty log is an empty session.
func TestForeignAndEmpty(t *testing.T) {
	s, err := transcript.Read(strings.NewReader("{\"a\":1}\n[1,2]\n\n{\"b\":2}\n"), "x")
	require.NoError(t, err)
	assert.Equal(t, transcript.Format(""), s.Format)
	assert.Equal(t, 3, s.Foreign)
	assert.Equal(t, 1, s.FirstBad)
	assert.Empty(t, s.Events)
	s, err = transcript.Read(strings.NewReader(""), "empty")
	require.NoError(t, err)
	assert.Zero(t, s.Lines)
}

func TestClassify(t *testing.T) {
	for text, want := range map[string]transcript.Injected{
		"<task-notification><task-id>1</task-id>": transcript.TaskNotification,
		"  <local-command-stdout>ok":              transcript.CommandEcho,
		"<command-name>/clear</command-name>":     transcript.CommandEcho,
		"Stop hook feedback:\ntests fail":         transcript.HookOutput,
		"[Request interrupted by user]":           transcript.Interruption,
	} {
		k, ok := transcript.Classify(text)
		assert.True(t, ok, text)
		assert.Equal(t, want, k, text)
	}
	for _, text := range []string{"fix the bug", "continue", "why does <task-notification> appear?"} {
		_, ok := transcript.Classify(text)
		assert.False(t, ok, text)
	}
}

func TestModelName(t *testing.T) {
	assert.Equal(t, "claude-sonnet-4", transcript.ModelName("claude-sonnet-4-20250514"))
	assert.Equal(t, "gpt-5.3-codex", transcript.ModelName(" GPT-5.3-codex"))
}

func TestFilesSkipsSubagents(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"p/b.jsonl", "p/a.jsonl", "p/a/subagents/s.jsonl", "p/notes.txt"} {
		writeFile(t, dir+"/"+p)
	}
	got, err := transcript.Files(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{dir + "/p/a.jsonl", dir + "/p/b.jsonl"}, got)
	_, err = transcript.Files(dir + "/missing")
	assert.ErrorContains(t, err, "missing")
}

// TestLongLines: a line longer than the reader's buffer is read whole.
func TestLongLines(t *testing.T) {
	long := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 300_000) + `"}}`
	s, err := transcript.Read(strings.NewReader(long+"\n"+long), "long")
	require.NoError(t, err)
	assert.Equal(t, "PP", kinds(s))
	assert.Zero(t, s.Malformed)
}
