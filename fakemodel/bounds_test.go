package fakemodel_test

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

// Every scripted figure accepts the ends of its range and nothing past
// them.
func TestOutcomeFiguresAtTheirBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"summary_tokens 0", fakemodel.CompactOutcome{SummaryTokens: 0}.Validate(), true},
		{"summary_tokens max", fakemodel.CompactOutcome{SummaryTokens: loop.MaxTokenCount}.Validate(), true},
		{"summary_tokens -1", fakemodel.CompactOutcome{SummaryTokens: -1}.Validate(), false},
		{"summary_tokens max+1", fakemodel.CompactOutcome{SummaryTokens: loop.MaxTokenCount + 1}.Validate(), false},
		{"keep 0", fakemodel.CompactOutcome{Keep: 0}.Validate(), true},
		{"keep max", fakemodel.CompactOutcome{Keep: fakemodel.MaxRepeat}.Validate(), true},
		{"keep -1", fakemodel.CompactOutcome{Keep: -1}.Validate(), false},
		{"keep max+1", fakemodel.CompactOutcome{Keep: fakemodel.MaxRepeat + 1}.Validate(), false},
		{"compact times max", fakemodel.CompactOutcome{Times: fakemodel.MaxRepeat}.Validate(), true},
		{"compact times max+1", fakemodel.CompactOutcome{Times: fakemodel.MaxRepeat + 1}.Validate(), false},
		{"stop times 0", fakemodel.StopOutcome{}.Validate(), true},
		{"stop times max", fakemodel.StopOutcome{Times: fakemodel.MaxRepeat}.Validate(), true},
		{"stop times -1", fakemodel.StopOutcome{Times: -1}.Validate(), false},
		{"stop times max+1", fakemodel.StopOutcome{Times: fakemodel.MaxRepeat + 1}.Validate(), false},
		{"tool tokens 0", fakemodel.Tool{Tokens: 0}.Validate(), true},
		{"tool tokens max", fakemodel.Tool{Tokens: loop.MaxTokenCount}.Validate(), true},
		{"tool tokens -1", fakemodel.Tool{Tokens: -1}.Validate(), false},
		{"tool tokens max+1", fakemodel.Tool{Tokens: loop.MaxTokenCount + 1}.Validate(), false},
	} {
		if c.ok {
			assert.NoError(t, c.err, c.name)
		} else {
			assert.Error(t, c.err, c.name)
		}
	}
}

// Answers.Validate checks every queue, naming it.
func TestAnswersValidateNamesEveryQueue(t *testing.T) {
	bad := []fakemodel.Step{{OutputTokens: -1}}
	for _, c := range []struct {
		answers fakemodel.Answers
		queue   string
	}{
		{fakemodel.Answers{Main: bad}, "answers.main"},
		{fakemodel.Answers{Compact: bad}, "answers.compact"},
		{fakemodel.Answers{Models: map[string]fakemodel.Answers{"haiku": {Main: bad}}}, "answers.models.haiku.main"},
		{fakemodel.Answers{Models: map[string]fakemodel.Answers{"haiku": {Compact: bad}}}, "answers.models.haiku.compact"},
	} {
		err := c.answers.Validate()
		if assert.Error(t, err, c.queue) {
			assert.Contains(t, err.Error(), c.queue+":")
		}
	}
	assert.NoError(t, fakemodel.Answers{Main: []fakemodel.Step{{Text: "ok"}}}.Validate())
}

// A step that repeats forever uses the script up once it has answered.
func TestDoneAfterTheForeverStepAnswersOnce(t *testing.T) {
	m := &fakemodel.Model{Script: []fakemodel.Step{{Text: "again", Repeat: fakemodel.Forever}}}
	assert.False(t, m.Done(), "done before any request")
	_, err := m.Stream(t.Context(), loop.Request{Purpose: loop.PurposeMain, Model: "m", MaxTokens: 100, InputTokens: 10}, func(loop.Block) {})
	assert.NoError(t, err)
	assert.True(t, m.Done(), "done after the forever step answered once")
}

// Number conditions compare exactly at their value, and "window" works
// for any set window.
func TestConditionsAtTheirValue(t *testing.T) {
	req := loop.Request{Purpose: loop.PurposeMain, Model: "m", MaxTokens: 100, InputTokens: 500}
	for _, c := range []struct {
		cond   string
		window int
		want   bool
	}{
		{"input_tokens < 500", 0, false}, {"input_tokens < 501", 0, true},
		{"input_tokens <= 500", 0, true}, {"input_tokens <= 499", 0, false},
		{"input_tokens > 500", 0, false}, {"input_tokens >= 500", 0, true},
		{"input_tokens == 500", 0, true}, {"input_tokens != 500", 0, false},
		{"max_tokens < window", 1, false}, {"max_tokens > window", 1, true},
		{"input_tokens <= window", 500, true}, {"input_tokens < window", 500, false},
	} {
		cond, err := fakemodel.ParseCondition(c.cond)
		if !assert.NoError(t, err, c.cond) {
			continue
		}
		got, err := cond.Eval(req, 1, c.window)
		if assert.NoError(t, err, "%s (window %d)", c.cond, c.window) {
			assert.Equal(t, c.want, got, "%s (window %d)", c.cond, c.window)
		}
	}
	cond, err := fakemodel.ParseCondition("input_tokens > window")
	assert.NoError(t, err)
	_, err = cond.Eval(req, 1, 0)
	assert.ErrorContains(t, err, "needs the Model's Window")
}

// Unplayed names a queue with a step left to play, from that step; a
// step that repeats forever is played once reached, even unanswered, so
// a queue that only stands by is never named.
func TestUnplayedSparesTheForeverStep(t *testing.T) {
	req := loop.Request{Purpose: loop.PurposeMain, Model: "m", MaxTokens: 100, InputTokens: 10}
	m := &fakemodel.Model{Answers: &fakemodel.Answers{
		Main:    []fakemodel.Step{{Kind: fakemodel.ServerError, Repeat: 2}, {Text: "done"}},
		Compact: []fakemodel.Step{{Text: "<summary>s</summary>", Repeat: fakemodel.Forever}},
	}}
	assert.Equal(t, []string{"answers.main from step 1 of 2"}, m.Unplayed())
	for range 2 {
		_, err := m.Stream(t.Context(), req, func(loop.Block) {})
		assert.Error(t, err)
	}
	assert.Equal(t, []string{"answers.main from step 2 of 2"}, m.Unplayed())
	_, err := m.Stream(t.Context(), req, func(loop.Block) {})
	assert.NoError(t, err)
	assert.Empty(t, m.Unplayed(), "the compaction's summary stands by: not unplayed")
	assert.False(t, m.Done(), "Done still wants the forever step to answer")

	forever := &fakemodel.Model{Script: []fakemodel.Step{{Text: "a"}, {Kind: fakemodel.ServerError, Repeat: fakemodel.Forever}}}
	assert.Equal(t, []string{"script from step 1 of 2"}, forever.Unplayed())
	_, err = forever.Stream(t.Context(), req, func(loop.Block) {})
	assert.NoError(t, err)
	assert.Empty(t, forever.Unplayed(), "the forever step reached")
}
