package transcript_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/loopsim/loopsim/transcript"
)

// FuzzRead: any bytes read as a session log give a session, never a
// panic nor an error (bad lines are counted), and every line is counted
// once at most.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/claude.jsonl", "testdata/codex.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{\"type\":\"assistant\",\"message\":{\"usage\":null}}\n{\"type\":\"compacted\"}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := transcript.Read(bytes.NewReader(b), "fuzz")
		if err != nil {
			t.Fatalf("error on in-memory input: %v", err)
		}
		if s.Malformed+s.Foreign > s.Lines || s.Lines > bytes.Count(b, []byte("\n"))+1 {
			t.Fatalf("counts: %d lines, %d malformed, %d foreign", s.Lines, s.Malformed, s.Foreign)
		}
		_ = s.Model()
		_ = s.Calls()
	})
}
