package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// The failure the model played is the fault's kind; replies whose shape
// the script injected and a user's abort are faults too; what the agent
// or the harness caused is not.
func TestFaultKind(t *testing.T) {
	for answer, kind := range map[string]string{"trunc": "truncated", "empty": "empty", "malformed": "malformed_tool_use", "abort": "abort",
		"text": "", "tool": "", "gone": "", "rejected": "", "fault": ""} {
		assert.Equal(t, kind, wire.Record{Answer: answer}.FaultKind(), answer)
	}
	assert.Equal(t, "stream_error", wire.Record{Answer: "stream_error", Fault: loop.KindStream}.FaultKind())
	assert.Equal(t, "rate_limited", wire.Record{Answer: "429", Fault: loop.KindRateLimited}.FaultKind())
}
