package fakemodel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

func ask(t *testing.T, m *fakemodel.Model, purpose loop.Purpose, model string) (string, error) {
	t.Helper()
	var text string
	_, err := m.Stream(context.Background(), loop.Request{Purpose: purpose, Model: model, MaxTokens: 100, InputTokens: 10},
		func(b loop.Block) { text += b.Text })
	return text, err
}

func TestAnswersByPurposeAndModel(t *testing.T) {
	m := &fakemodel.Model{Answers: &fakemodel.Answers{
		Main:    []fakemodel.Step{{Text: "main 1"}, {Text: "main 2"}},
		Compact: []fakemodel.Step{{Text: "<summary>1</summary>"}},
		Models: map[string]fakemodel.Answers{
			"haiku": {Main: []fakemodel.Step{{Text: "side", Repeat: fakemodel.Forever}}},
		},
	}}
	for _, c := range []struct {
		purpose loop.Purpose
		model   string
		want    string
	}{
		{loop.PurposeMain, "opus", "main 1"},
		{loop.PurposeMain, "haiku", "side"},
		{loop.PurposeCompact, "opus", "<summary>1</summary>"},
		{loop.PurposeMain, "haiku", "side"},
		{loop.PurposeMain, "opus", "main 2"},
	} {
		assert.False(t, m.Done())
		got, err := ask(t, m, c.purpose, c.model)
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
	}
	assert.True(t, m.Done(), "every queue used up (haiku's repeats forever)")

	_, err := ask(t, m, loop.PurposeCompact, "haiku")
	var ex *fakemodel.ExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, "answers.compact", ex.Queue, "haiku has no compaction queue: the top-level one answers")
	assert.Equal(t, 6, ex.Request, "requests are numbered across queues")
	assert.ErrorContains(t, err, "after all 1 steps of answers.compact were used")
}

func TestAnswersStepErrorsNameTheirQueue(t *testing.T) {
	m := &fakemodel.Model{Answers: &fakemodel.Answers{Compact: []fakemodel.Step{{Kind: "bogus"}}}}
	_, err := ask(t, m, loop.PurposeCompact, "x")
	var se *fakemodel.StepError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "answers.compact", se.Queue)
	assert.ErrorContains(t, err, "fakemodel: answers.compact step 0: unknown kind")
}

func TestAnswersValidate(t *testing.T) {
	bad := fakemodel.Answers{
		Main: []fakemodel.Step{{Text: "x", Repeat: fakemodel.Forever}, {Text: "never"}},
		Models: map[string]fakemodel.Answers{
			"b": {Compact: []fakemodel.Step{{}}},
			"a": {Models: map[string]fakemodel.Answers{"c": {}}},
		},
	}
	err := bad.Validate()
	require.Error(t, err)
	assert.Equal(t, "answers.main: fakemodel: script step 1: unreachable: step 0 repeats forever\n"+
		"answers.models.a.models: a model's queues have no models of their own\n"+
		"answers.models.b.compact: fakemodel: script step 0: a reply needs text, thinking or tool_uses (use kind \"empty\" for an empty reply)",
		err.Error())
	assert.NoError(t, fakemodel.Answers{Main: []fakemodel.Step{{Text: "ok"}}}.Validate())
}

func TestBaseTokens(t *testing.T) {
	m := &fakemodel.Model{BaseTokens: 20_000, Window: 25_000, Script: []fakemodel.Step{
		{Text: "ok"},
		{If: fakemodel.MustCondition("input_tokens > window"), Then: &fakemodel.Step{Kind: fakemodel.PromptTooLong}, Else: &fakemodel.Step{Text: "fits"}},
	}}
	resp, err := m.Stream(context.Background(), loop.Request{InputTokens: 3_000}, func(loop.Block) {})
	require.NoError(t, err)
	assert.Equal(t, 23_000, resp.Usage.InputTokens, "the base is reported with the input")
	_, err = m.Stream(context.Background(), loop.Request{InputTokens: 6_000}, func(loop.Block) {})
	assert.EqualError(t, err, "400 prompt_too_long: prompt is too long: 26000 tokens > 25000 maximum")
	assert.Equal(t, 6_000, m.Requests[1].InputTokens, "the request is recorded as the loop sent it")
}
