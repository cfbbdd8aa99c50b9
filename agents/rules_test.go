package agents

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

func records(answers ...string) []wire.Record {
	out := make([]wire.Record, len(answers))
	for i, a := range answers {
		out[i] = wire.Record{Seq: i + 1, Purpose: loop.PurposeMain, Answer: a}
	}
	return out
}

func TestJudgeCleanRun(t *testing.T) {
	out := &scenarios.AgentOutcome{Records: records("429", "text"), Exit: 0,
		Calls: []scenarios.ModelCall{{Start: 0, End: 10 * time.Millisecond, Status: 429, RetryAfterMS: 1000}, {Start: 1100 * time.Millisecond, End: 1200 * time.Millisecond}}}
	assert.Empty(t, Judge(out, false, time.Minute))
}

func TestJudgeRetriesWithoutBound(t *testing.T) {
	answers := make([]string, StormFailures)
	for i := range answers {
		answers[i] = "500"
	}
	assert.Empty(t, Judge(&scenarios.AgentOutcome{Records: records(answers...), Exit: 1}, false, time.Minute), "at the bound")
	got := Judge(&scenarios.AgentOutcome{Records: records(append(answers, "500")...), Exit: 1}, false, time.Minute)
	assert.Equal(t, []string{"retries without bound: 21 failed requests"}, got)
}

func TestJudgeExitZeroAfterFailure(t *testing.T) {
	got := Judge(&scenarios.AgentOutcome{Records: records("trunc"), Exit: 0}, false, time.Minute)
	assert.Equal(t, []string{"exit 0 after the session failed: no request got a complete reply"}, got)
	assert.Empty(t, Judge(&scenarios.AgentOutcome{Records: records("trunc"), Exit: 1}, false, time.Minute), "a failure reported as one")
	assert.Empty(t, Judge(&scenarios.AgentOutcome{Records: records("text", "500"), Exit: 0}, false, time.Minute), "a side request failing after the reply")
}

func TestJudgeCompactionLoop(t *testing.T) {
	recs := records("400", "text", "text", "text", "text")
	for i := 1; i < len(recs); i++ {
		recs[i].Purpose = loop.PurposeCompact
	}
	assert.Equal(t, []string{"compacts in a loop: 4 compaction requests"}, Judge(&scenarios.AgentOutcome{Records: recs, Exit: 1}, false, time.Minute))
	assert.Empty(t, Judge(&scenarios.AgentOutcome{Records: recs[:4], Exit: 1}, false, time.Minute))
}

func TestJudgeIgnoresRetryAfter(t *testing.T) {
	calls := []scenarios.ModelCall{{End: time.Second, Status: 429, RetryAfterMS: 2000}, {Start: 1500 * time.Millisecond}}
	got := Judge(&scenarios.AgentOutcome{Records: records("429", "text"), Calls: calls}, false, time.Minute)
	assert.Equal(t, []string{"ignores retry-after: 0.5 s after a 429 asking for 2.0 s"}, got)
	calls[1].Start = 2950 * time.Millisecond // within the slack
	assert.Empty(t, Judge(&scenarios.AgentOutcome{Records: records("429", "text"), Calls: calls}, false, time.Minute))
}

func TestJudgeHangs(t *testing.T) {
	calls := []scenarios.ModelCall{{End: 10 * time.Second, Status: 500}}
	got := Judge(&scenarios.AgentOutcome{Records: records("500"), Calls: calls, Exit: -1}, true, time.Minute)
	assert.Equal(t, []string{"hangs instead of exiting: no request for the last 50 s before the 60 s limit"}, got)
	calls[0].End = 40 * time.Second
	assert.Empty(t, Judge(&scenarios.AgentOutcome{Records: records("500"), Calls: calls, Exit: -1}, true, time.Minute), "still retrying at the limit")
}

func TestSequence(t *testing.T) {
	assert.Equal(t, "M:500 ×3 M:text C:text", Sequence([]string{"M:500", "M:500", "M:500", "M:text", "C:text"}))
	assert.Equal(t, "", Sequence(nil))
}
