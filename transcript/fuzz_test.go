package transcript_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/loopsim/loopsim/transcript"
	"github.com/stretchr/testify/require"
)

// FuzzRead: any bytes read as a session log give a session, never a
// panic nor an error (bad lines are counted), and every line is counted
// once at most.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/claude.jsonl", "testdata/codex.jsonl"} {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte("{\"type\":\"assistant\",\"message\":{\"usage\":null}}\n{\"type\":\"compacted\"}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := transcript.Read(bytes.NewReader(b), "fuzz")
		require.NoError(t, err, "error on in-memory input")
		require.LessOrEqual(t, s.Malformed+s.Foreign, s.Lines, "counts: %d lines, %d malformed, %d foreign", s.Lines, s.Malformed, s.Foreign)
		require.LessOrEqual(t, s.Lines, bytes.Count(b, []byte("\n"))+1, "counts: %d lines, %d malformed, %d foreign", s.Lines, s.Malformed, s.Foreign)
		_ = s.Model()
		_ = s.Calls()
	})
}
