package fakemodel

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/loopsim/loopsim/internal/field"
)

// Workload is a stochastic model of an agent's sessions: the parameters
// of the distributions an [Episode] draws from. Unlike the scripted fakes
// of this package it draws random numbers, but only from the seeded
// streams an episode is given, so one seed always plays the same session.
//
// The model is physically consistent: a request over the context window
// fails prompt-too-long, output is cut at the request's max_tokens (and
// at what is left of the window), the context grows by exactly what the
// replies and tool results add, and compaction shrinks it to the summary
// the model writes. [DefaultWorkload] is calibrated on real Claude Code
// transcripts.
type Workload struct {
	// StartContext is the size of the starting history, in tokens: the
	// system prompt, tool definitions, project notes and the user's
	// prompt.
	StartContext Uniform `json:"start_context"`
	// Replies is how many main replies a session makes: every reply but
	// the last calls tools, the last answers. Stop-hook blocks add more.
	Replies LogNormal `json:"replies"`
	// Output is the output of one reply, in tokens, before the cap.
	Output LogNormal `json:"output"`
	// Tools is the number of tool calls in a reply that calls tools.
	Tools Geometric `json:"tools"`
	// ToolResult is what one tool call adds to the context, in tokens:
	// its result with the reminders and attachments the agent appends,
	// and the thinking that transcripts do not count as output.
	ToolResult LogNormal `json:"tool_result"`
	// Summary is the output of a compaction request, in tokens, before
	// the cap. It stands for everything the conversation keeps after a
	// compaction but the preserved tail, system prompt included.
	Summary LogNormal `json:"summary"`
	// AfterBlock is how many more tool-calling replies the model makes
	// after a stop hook blocks its answer.
	AfterBlock Geometric `json:"after_block"`
	// CompactionRework is how many more tool-calling replies the model
	// makes after each compaction, redoing what the summary lost
	// (re-reading files, re-running commands): the cost of a compaction
	// besides its own request. Nothing is drawn while Mean is Min and Min
	// is 0 (no rework).
	CompactionRework Geometric `json:"compaction_rework"`
	// Population is how sessions differ from each other: the spread of
	// the factors each session scales the parameters above by (zero: every
	// session draws from the workload as given).
	Population Population `json:"population,omitzero"`
	// Faults are the injected faults' probabilities.
	Faults Faults `json:"faults"`
	// Swarm draws each episode's fault probabilities afresh (see
	// [Faults.Swarm]) instead of using Faults as given.
	Swarm bool `json:"swarm"`
}

// Faults are the probabilities of injected faults. API faults are drawn
// per request attempt (main and compaction alike); the others where each
// field says.
type Faults struct {
	// Overloaded is the probability of a 529 per attempt.
	Overloaded float64 `json:"overloaded"`
	// RateLimited is the probability of a 429 per attempt.
	RateLimited float64 `json:"rate_limited"`
	// ServerError is the probability of a 500 per attempt.
	ServerError float64 `json:"server_error"`
	// Connection is the probability of a dropped connection per attempt.
	Connection float64 `json:"connection"`
	// StreamError is the probability of an error event mid-stream per
	// attempt.
	StreamError float64 `json:"stream_error"`
	// StreamErrorAfterContent is the share of StreamError faults whose
	// error event comes after the reply's first blocks streamed: the
	// cut reply holds from one to all of its blocks (how many is drawn
	// uniformly from the episode's fault stream), each block whole
	// (a cut inside a tool_use's input, which the loop drops as never
	// finished, is not drawn). The rest come before any content. It
	// applies to compaction requests too (the summary is their one
	// block), not to non-streaming ones (their answer comes whole or
	// not at all). A share, not a rate: [Faults.Swarm] keeps it as
	// given.
	// No data says how often real stream errors come after content;
	// the default is 0.
	StreamErrorAfterContent float64 `json:"stream_error_after_content"`
	// InvalidRequest is the probability of a 400 (other than
	// prompt-too-long) per attempt.
	InvalidRequest float64 `json:"invalid_request"`
	// Persist is the probability that an attempt which failed with an API
	// fault is followed by an attempt failing the same way: outages come
	// in bursts.
	Persist float64 `json:"persist"`
	// MediaTooLarge is the probability, per tool call, that the result
	// carries an oversized image: every main request that still carries
	// it fails 413 until a compaction removes it.
	MediaTooLarge float64 `json:"media_too_large"`
	// MalformedToolUse is the probability, per tool-calling reply, that
	// the reply says stop_reason tool_use without a tool_use block.
	MalformedToolUse float64 `json:"malformed_tool_use"`
	// EmptyReply is the probability, per reply, that it is empty.
	EmptyReply float64 `json:"empty_reply"`
	// StopHookBlock is the probability that the stop hooks block an
	// answer that was not blocked before.
	StopHookBlock float64 `json:"stop_hook_block"`
	// StopHookRepeat is the probability that the stop hooks block again
	// an answer given after a block (1: a hook that always blocks).
	StopHookRepeat float64 `json:"stop_hook_repeat"`
	// StopHookPrevent is the probability, per stop-hook run, that a hook
	// ends the query (stop_hook_prevented).
	StopHookPrevent float64 `json:"stop_hook_prevent"`
	// ToolHookStop is the probability, per tool call, that a tool hook
	// ends the query after the batch (hook_stopped).
	ToolHookStop float64 `json:"tool_hook_stop"`
	// Abort is the probability, per episode, that the user aborts it, at
	// a reply drawn uniformly from the session's plan, while the model
	// streams or while its tools run.
	Abort float64 `json:"abort"`
}

// DefaultWorkload is fitted (`simulate calibrate`, docs/calibration.md)
// to the Claude Code transcripts of shared/data/transcripts: three
// sources (spotter, slopometry, sniffly), five sessions, 757 calls, Claude
// Code 1.0 to 2.1 on 200,000-token models; sim's calibration test
// compares a simulation against them. The pooled figures:
//
//   - starting context 14k-26k tokens (22k-26k for Claude Code 2.x);
//   - output per call: median 171, p90 744, p99 2,640 tokens;
//   - context growth per call: median 523, p90 2,755, p99 10,872;
//   - 1.1-1.3 tool calls per call;
//   - calls per user prompt: median 11, mean 28, p90 118 (a heavy tail);
//   - context after a compaction ~34k-35k tokens.
//
// Sessions differ: its [Population] is the spread between the three
// sources (each session's output, calls per prompt, tool calls, growth
// and starting context scaled by its own factor), so the simulated
// sessions spread as users do, not as the episodes of one user; the
// distributions within a session are the narrower remainder.
//
// Nothing in the transcripts measures fault rates; the defaults are small
// and round (two connection-retry errors in 187 calls give the order of
// magnitude of the API faults).
func DefaultWorkload() Workload {
	return Workload{
		StartContext: Uniform{Min: 24_562, Max: 27_147},
		Replies:      LogNormal{Median: 11, Sigma: 1.28, Min: 1, Max: 1_000},
		Output:       LogNormal{Median: 189, Sigma: 0.865, Min: 1, Max: 1_000_000},
		Tools:        Geometric{Min: 1, Mean: 1.08, Max: 16},
		ToolResult:   LogNormal{Median: 187, Sigma: 1.69, Min: 5, Max: 25_000},
		Summary:      LogNormal{Median: 39_500, Sigma: 0.08, Min: 1_000, Max: 1_000_000},
		Population:   Population{StartContext: 0.316, Output: 0.626, Replies: 0.816, Tools: 0.979, ToolResult: 0.238},
		AfterBlock:   Geometric{Min: 0, Mean: 2, Max: 50},
		// An assumption (the transcripts' four compactions do not measure
		// it, see DefaultCompactionRework).
		CompactionRework: DefaultCompactionRework,
		Faults: Faults{
			Overloaded:       0.003,
			RateLimited:      0.001,
			ServerError:      0.001,
			Connection:       0.005,
			StreamError:      0.001,
			InvalidRequest:   0.0002,
			Persist:          0.3,
			MediaTooLarge:    0.0002,
			MalformedToolUse: 0.0005,
			EmptyReply:       0.001,
			StopHookBlock:    0.05,
			StopHookRepeat:   0.3,
			StopHookPrevent:  0.002,
			ToolHookStop:     0,
			Abort:            0.02,
		},
	}
}

// DefaultCompactionRework is the rework a compaction causes by default:
// three more tool-calling replies on average. It is an assumption, not a
// measurement. In the transcripts (four compactions; sim's calibration
// targets keep the observations) the 30 calls after a compaction re-read
// 4 to 8 files read earlier, but the 30 calls before re-read 1 to 14: the
// excess is -7, +4, +5 and -2, a mean of 0 with a spread that allows up
// to about 9. Three is half the re-reads seen after a compaction. Switch
// it off with -set workload.compaction_rework.mean=0.
var DefaultCompactionRework = Geometric{Min: 0, Mean: 3, Max: 50}

// Validate checks every parameter and returns the first bad one, named by
// its path (as [Workload.With] takes it).
func (w Workload) Validate() error {
	dists := []struct {
		name string
		err  error
	}{
		{"start_context", w.StartContext.validate()},
		{"replies", w.Replies.validate()},
		{"output", w.Output.validate()},
		{"tools", w.Tools.validate()},
		{"tool_result", w.ToolResult.validate()},
		{"summary", w.Summary.validate()},
		{"after_block", w.AfterBlock.validate()},
		{"compaction_rework", w.CompactionRework.validate()},
	}
	for _, d := range dists {
		if d.err != nil {
			return fmt.Errorf("workload %s: %w", d.name, d.err)
		}
	}
	if err := w.Population.validate(); err != nil {
		return fmt.Errorf("workload population.%w", err)
	}
	if w.Replies.Min < 1 {
		return errors.New("workload replies: min must be at least 1 (the final answer)")
	}
	if w.Tools.Min < 1 {
		return errors.New("workload tools: min must be at least 1 (a reply that calls tools calls one)")
	}
	for _, f := range w.Faults.fields() {
		if !(*f.p >= 0 && *f.p <= 1) {
			return fmt.Errorf("workload faults.%s: %v is not a probability in [0, 1]", f.name, *f.p)
		}
	}
	return nil
}

// With returns a copy of w with one parameter, named by its dotted JSON
// path ("output.median", "faults.overloaded", "swarm"), set from its text
// form by internal/field's rule. The result is validated.
func (w Workload) With(path, value string) (Workload, error) {
	v, err := field.Find(reflect.ValueOf(&w).Elem(), path)
	if err != nil {
		return w, fmt.Errorf("workload has no parameter %q (known: %s)", path, strings.Join(WorkloadFields(), ", "))
	}
	if v.Kind() == reflect.Struct {
		return w, fmt.Errorf("workload %s is a group of parameters, not one (known: %s)", path, strings.Join(WorkloadFields(), ", "))
	}
	if err := field.Set(v, path, value); err != nil {
		return w, fmt.Errorf("workload %w", err)
	}
	if err := w.Validate(); err != nil {
		return w, err
	}
	return w, nil
}

// WorkloadFields lists the dotted paths of every workload parameter, in
// declaration order.
func WorkloadFields() []string {
	var out []string
	for _, f := range field.Fields(reflect.TypeOf(Workload{})) {
		out = append(out, f.Path)
	}
	return out
}
