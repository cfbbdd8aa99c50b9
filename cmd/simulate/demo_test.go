package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemoShowsEachFaultRecovered(t *testing.T) {
	var out, errOut bytes.Buffer
	code := dispatch([]string{"demo", "--json"}, &out, &errOut)
	require.Equal(t, 0, code, "exit code; stderr: %s", errOut.String())
	tr, err := loop.ReadJSONL(&out)
	require.NoError(t, err)
	want := []loop.Transition{loop.NextTurn, loop.ReactiveCompactRetry, loop.MaxOutputTokensEscalate, loop.StopHookBlocking}
	if diff := cmp.Diff(want, tr.Transitions()); diff != "" {
		t.Errorf("transitions (-want +got):\n%s", diff)
	}
	assert.Equal(t, loop.Completed, tr.Terminal(), "terminal")

	out.Reset()
	code = dispatch([]string{"demo"}, &out, &errOut)
	require.Equal(t, 0, code, "exit code; stderr: %s", errOut.String())
	for _, line := range []string{"=> reactive_compact_retry", "withheld     max_output_tokens", "stop_hook    block", "terminal completed after 5 iterations"} {
		assert.Contains(t, out.String(), line, "readable demo")
	}
	assert.Equal(t, 2, dispatch([]string{"demo", "extra"}, &out, &errOut), "an unexpected argument's exit code")
}
