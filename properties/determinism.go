package properties

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// CheckDeterminism runs run twice and compares the JSON Lines traces byte
// for byte (docs/spec.md §5, determinism). run must build its inputs afresh each
// time (new fakes from the same scripts, the same seed and policy). The
// error names the first line that differs.
func CheckDeterminism(run func() *loop.Result) error {
	a, err := traceBytes(run())
	if err != nil {
		return fmt.Errorf("determinism: first run: %w", err)
	}
	b, err := traceBytes(run())
	if err != nil {
		return fmt.Errorf("determinism: second run: %w", err)
	}
	return sameTrace(a, b)
}

// traceBytes encodes a result's trace as JSON Lines.
func traceBytes(res *loop.Result) ([]byte, error) {
	if res == nil {
		return nil, errors.New("run returned no result")
	}
	var buf bytes.Buffer
	if err := res.Trace.WriteJSONL(&buf); err != nil {
		return nil, fmt.Errorf("encode trace: %w", err)
	}
	return buf.Bytes(), nil
}

// sameTrace reports the first line where two JSON Lines traces differ.
func sameTrace(a, b []byte) error {
	if bytes.Equal(a, b) {
		return nil
	}
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < min(len(la), len(lb)); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return fmt.Errorf("determinism: traces differ at line %d:\n  first:  %s\n  second: %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Errorf("determinism: traces differ in length: %d and %d lines", len(la)-1, len(lb)-1)
}
