package agents

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

func records(answers ...string) []wire.Record {
	out := make([]wire.Record, len(answers))
	for i, a := range answers {
		out[i] = wire.Record{Seq: i + 1, API: "messages", Model: "claude-sonnet-4-5", Purpose: loop.PurposeMain, Answer: a,
			Messages: i + 1, Kept: i, Arrival: time.Duration(i) * time.Second}
	}
	return out
}

// outcome is a run of a scenario whose main answers are steps.
func outcome(recs []wire.Record, exit int, steps ...fakemodel.Step) *scenarios.AgentOutcome {
	return &scenarios.AgentOutcome{Scenario: &scenarios.Scenario{Answers: &fakemodel.Answers{Main: steps}}, Records: recs, Exit: exit}
}

// names are the invariants of Judge's lines.
func names(lines []string) []string {
	var out []string
	for _, l := range lines {
		name, _, _ := strings.Cut(l, ":")
		out = append(out, name)
	}
	return out
}

var (
	text    = fakemodel.Step{Text: "Hello.", Repeat: fakemodel.Forever}
	failing = fakemodel.Step{Kind: fakemodel.ServerError, Repeat: fakemodel.Forever}
)

func TestJudgeCleanRun(t *testing.T) {
	out := outcome(records("429", "text"), 0, fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 1000}, text)
	assert.Empty(t, Judge(out, false, time.Minute))
}

func TestJudgeBoundedRetries(t *testing.T) {
	answers := make([]string, StormFailures)
	for i := range answers {
		answers[i] = "500"
	}
	assert.Empty(t, Judge(outcome(records(answers...), 1, failing), false, time.Minute), "at the bound")
	got := Judge(outcome(records(append(answers, "500")...), 1, failing), false, time.Minute)
	assert.Equal(t, []string{"bounded-retries", RuleRetriesWithoutBound}, names(got), "%v", got)
	// a failure alternating with a reply: no failures in a row, but a storm in the run
	alternating := make([]string, 0, 2*StormFailures+2)
	for range StormFailures + 1 {
		alternating = append(alternating, "500", "tool")
	}
	got = Judge(outcome(records(alternating...), 1, fakemodel.Step{Kind: fakemodel.ServerError}, fakemodel.Step{Text: "x", ToolUses: []fakemodel.ToolUse{{Name: "t", Input: "{}"}}}), false, time.Minute)
	assert.Contains(t, names(got), RuleRetriesWithoutBound)
	assert.NotContains(t, names(got), "bounded-retries")
}

func TestJudgeFailureReported(t *testing.T) {
	trunc := fakemodel.Step{Kind: fakemodel.Truncated, Text: "Hel", Repeat: fakemodel.Forever}
	assert.Equal(t, []string{"failure-reported"}, names(Judge(outcome(records("trunc"), 0, trunc), false, time.Minute)))
	assert.Empty(t, Judge(outcome(records("trunc"), 1, trunc), false, time.Minute), "a failure reported as one")
	got := Judge(outcome(records("text", "500"), 0, fakemodel.Step{Text: "Hello."}, failing), false, time.Minute)
	assert.Equal(t, []string{"no-request-after-end"}, names(got), "a side request after the reply")
}

func TestJudgeBoundedCompaction(t *testing.T) {
	recs := records("400", "text", "text", "text", "text")
	for i := 1; i < len(recs); i++ {
		recs[i].Purpose = loop.PurposeCompact
	}
	ptl := fakemodel.Step{Kind: fakemodel.PromptTooLong}
	assert.Equal(t, []string{"bounded-compaction"}, names(Judge(outcome(recs, 1, ptl, text), false, time.Minute)))
	assert.Empty(t, Judge(outcome(recs[:4], 1, ptl, text), false, time.Minute))
}

func TestJudgeRetryAfterHonoured(t *testing.T) {
	recs := records("429", "text")
	recs[1].Arrival = 500 * time.Millisecond
	steps := []fakemodel.Step{{Kind: fakemodel.RateLimited, RetryAfterMS: 2000}, text}
	assert.Equal(t, []string{"retry-after-honoured"}, names(Judge(outcome(recs, 0, steps...), false, time.Minute)))
	recs[1].Arrival = 1950 * time.Millisecond // within the slack
	assert.Empty(t, Judge(outcome(recs, 0, steps...), false, time.Minute))
}

func TestJudgeSessionEndsAndHangs(t *testing.T) {
	out := outcome(records("500"), -1, failing)
	out.Calls = []scenarios.ModelCall{{End: 10 * time.Second, Status: 500}}
	assert.Equal(t, []string{"session-ends", RuleHangsAfterFailure}, names(Judge(out, true, time.Minute)), "idle for the last 50 s of 60")
	out.Calls[0].End = 40 * time.Second
	assert.Equal(t, []string{"session-ends"}, names(Judge(out, true, time.Minute)), "still retrying at the limit: slow, not hung")
}

func TestJudgeMaxTokensOfAKnownModel(t *testing.T) {
	recs := records("text")
	recs[0].MaxTokens = 64_000 // claude-sonnet-4-5's maximum is 32,000
	assert.Equal(t, []string{"max-tokens-within-model"}, names(Judge(outcome(recs, 0, text), false, time.Minute)))
	recs[0].Model = "gpt-test" // not in the catalog: not checked
	assert.Empty(t, Judge(outcome(recs, 0, text), false, time.Minute))
}

func TestSequence(t *testing.T) {
	assert.Equal(t, "M:500 ×3 M:text C:text", Sequence([]string{"M:500", "M:500", "M:500", "M:text", "C:text"}))
	assert.Equal(t, "", Sequence(nil))
}
