package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/loop"
)

func TestDemoShowsEachFaultRecovered(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"demo", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	tr, err := loop.ReadJSONL(&out)
	if err != nil {
		t.Fatal(err)
	}
	want := []loop.Transition{loop.NextTurn, loop.ReactiveCompactRetry, loop.MaxOutputTokensEscalate, loop.StopHookBlocking}
	if diff := cmp.Diff(want, tr.Transitions()); diff != "" || tr.Terminal() != loop.Completed {
		t.Errorf("terminal %s, transitions (-want +got):\n%s", tr.Terminal(), diff)
	}

	out.Reset()
	if code := dispatch([]string{"demo"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, line := range []string{"=> reactive_compact_retry", "withheld     max_output_tokens", "stop_hook    block", "terminal completed after 5 iterations"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("readable demo lacks %q:\n%s", line, out.String())
		}
	}
	if code := dispatch([]string{"demo", "extra"}, &out, &errOut); code != 2 {
		t.Errorf("an unexpected argument exits %d, want 2", code)
	}
}
