package scenarios

import (
	"context"
	"errors"
	"slices"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// fixture is one run's fakes and loop configuration. The fakes keep state
// (the script's position, the calls they saw), so every run builds its
// own.
type fixture struct {
	cfg     loop.Config
	initial []loop.Message
	model   *watchedModel
}

// fixture builds the fakes of s and the configuration that drives them.
// cancel aborts the run: abort steps and abort tools call it.
func (s *Scenario) fixture(cancel context.CancelFunc) fixture {
	model := &watchedModel{Model: s.scriptedModel(cancel)}
	model.BaseTokens = s.BaseTokens
	cfg := loop.Config{
		Policy:         s.policy,
		Model:          model,
		Primary:        s.Model,
		FallbackModel:  s.FallbackModel,
		ToolNames:      s.toolNames(),
		Tools:          &fakemodel.Tools{Default: s.Tools.Default, ByName: s.Tools.ByName, ByID: s.Tools.ByID, Cancel: cancel},
		TokenBudget:    s.TokenBudget,
		Seed:           s.Seed,
		IterationLimit: s.iterationLimit(),
	}
	// Each seam is set only when the scenario writes it: a nil interface
	// and an interface holding a nil pointer differ.
	if s.StopHooks != nil {
		cfg.StopHooks = &fakemodel.StopHooks{Outcomes: s.StopHooks}
		// with hooks configured, the stop-failure hooks are too (they
		// succeed), so a run ending on an API error shows them run
		cfg.StopFailureHooks = &fakemodel.StopFailureHooks{}
	}
	if s.Compactor != nil {
		cfg.Compactor = &fakemodel.Compactor{Outcomes: s.Compactor}
	}
	if s.Summarizer != nil {
		cfg.Summarizer = &fakemodel.Summarizer{Outcomes: s.Summarizer}
	}
	initial := make([]loop.Message, len(s.Conversation))
	for i, m := range s.Conversation {
		initial[i] = m.message()
	}
	return fixture{cfg: cfg, initial: initial, model: model}
}

// toolNames are the tools offered: tool_names, else the by_name keys.
func (s *Scenario) toolNames() []string {
	if s.ToolNames != nil {
		return s.ToolNames
	}
	return sortedKeys(s.Tools.ByName)
}

func (s *Scenario) iterationLimit() int {
	if s.IterationLimit > 0 {
		return s.IterationLimit
	}
	return DefaultIterationLimit
}

// scriptedModel is a fresh scripted model playing the scenario's script
// or answers, with no base size (the wire measures it).
func (s *Scenario) scriptedModel(cancel context.CancelFunc) *fakemodel.Model {
	m := &fakemodel.Model{Script: s.Script, Window: s.Model.ContextWindow, Cancel: cancel}
	if s.Answers != nil {
		a := *s.Answers
		m.Answers, m.Script = &a, nil
	}
	return m
}

// allSteps is every step of the script or of every answer queue.
func (s *Scenario) allSteps() []fakemodel.Step {
	if s.Answers == nil {
		return s.Script
	}
	out := slices.Concat(s.Answers.Main, s.Answers.Compact)
	for _, name := range sortedKeys(s.Answers.Models) {
		out = slices.Concat(out, s.Answers.Models[name].Main, s.Answers.Models[name].Compact)
	}
	return out
}

// scriptSteps is how many requests the script (or every answer queue)
// can answer, or zero when a step repeats forever.
func (s *Scenario) scriptSteps() int {
	n := 0
	for _, st := range s.allSteps() {
		if st.Repeat == fakemodel.Forever {
			return 0
		}
		n += max(st.Repeat, 1)
	}
	return n
}

// models are the models the run may send to.
func (s *Scenario) models() []loop.ModelInfo {
	if s.FallbackModel.Name == "" {
		return []loop.ModelInfo{s.Model}
	}
	return []loop.ModelInfo{s.Model, s.FallbackModel}
}

// message is m as the loop holds it: text, then tool uses, then tool
// results.
func (m Message) message() loop.Message {
	var blocks []loop.Block
	if m.Text != "" {
		blocks = append(blocks, loop.Block{Type: loop.BlockText, Text: m.Text})
	}
	for _, u := range m.ToolUses {
		input := u.Input
		if input == "" {
			input = "{}"
		}
		blocks = append(blocks, loop.Block{Type: loop.BlockToolUse, ID: u.ID, Name: u.Name, Input: input})
	}
	for _, r := range m.ToolResults {
		blocks = append(blocks, loop.Block{Type: loop.BlockToolResult, ToolUseID: r.ToolUseID, Text: r.Text, Tokens: r.Tokens, IsError: r.IsError})
	}
	var usage *loop.Usage
	if m.Usage != nil {
		u := *m.Usage
		usage = &u
	}
	return loop.Message{ID: m.ID, Role: m.Role, Blocks: blocks, Tokens: m.Tokens, Usage: usage, Meta: m.Meta}
}

// watchedModel is the scripted model as the loop sees it. It keeps the
// first fault of the scenario itself that the fake reported (the script
// ran out, a step cannot play): the loop would take it for a failed
// request and end the run in a terminal that proves nothing.
type watchedModel struct {
	*fakemodel.Model
	fault error
}

// Stream implements [loop.Model].
func (m *watchedModel) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	resp, err := m.Model.Stream(ctx, req, yield)
	var exhausted *fakemodel.ExhaustedError
	var step *fakemodel.StepError
	if m.fault == nil && (errors.As(err, &exhausted) || errors.As(err, &step)) {
		m.fault = err
	}
	return resp, err
}
