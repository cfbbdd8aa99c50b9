package loop

import (
	"errors"
	"fmt"
	"time"
)

// Config is everything a run needs besides the starting history. Seams
// left nil get the defaults named on each field, or are switched off.
type Config struct {
	// Policy is the loop policy (see [Seed], [ClaudeCode]).
	Policy Policy
	// Model is the model seam. Required.
	Model Model
	// Primary describes the main model. Required.
	Primary ModelInfo
	// FallbackModel describes the model to switch to on fallback; an empty
	// Name means no fallback model is configured.
	FallbackModel ModelInfo
	// ToolNames are offered to the model and kept in the tool-use context.
	ToolNames []string
	// AgentID names the agent.
	AgentID string

	// Tools runs tool calls. Nil: every call gets an error result.
	Tools Tools
	// StopHooks runs stop hooks. Nil: no hooks (always pass).
	StopHooks StopHooks
	// StopFailureHooks are told when the run ends on an API error (the
	// seed's "completed after an API error"). Nil: none.
	StopFailureHooks StopFailureHooks
	// Compactor compacts. Nil: a [SummaryCompactor] configured from the
	// policy, which asks the model for a summary.
	Compactor Compactor
	// Snipper snips. Nil: [OldestSnipper].
	Snipper Snipper
	// Microcompactor microcompacts. Nil: [KeepRecentMicrocompactor].
	Microcompactor Microcompactor
	// Collapser collapses. Nil: [SpanCollapser].
	Collapser Collapser
	// Counter counts request tokens. Nil: [UsageCounter].
	Counter TokenCounter
	// Estimator sizes messages with no size. Nil: [CharEstimator].
	Estimator Estimator
	// Summarizer summarises tool batches in the background. Nil: none.
	Summarizer ToolUseSummarizer

	// TokenBudget is the run's output token budget; zero means none.
	TokenBudget int
	// Seed seeds the retry layer's jitter stream.
	Seed uint64
	// Observer, if set, sees every event as it happens.
	Observer func(Event)
	// OnModelCall, if set, sees the loop's state before every model call
	// (every attempt, compaction requests included), from the loop's
	// goroutine; see [ModelCall].
	OnModelCall func(ModelCall)
	// DiscardTrace stops the run from keeping the trace in its [Result]
	// (the observer still sees every event).
	DiscardTrace bool
	// CancelGrace is how long Run waits, once ctx is done, for a Model
	// that ignores cancellation to return from Stream; after it Run
	// returns an error naming the model seam (see [ErrSeamStuck]). Zero
	// means [DefaultCancelGrace].
	CancelGrace time.Duration
	// InlineModelCalls calls Model.Stream on Run's own goroutine even when
	// ctx can be cancelled, instead of on a goroutine per request that Run
	// can abandon after CancelGrace. Only for a Model known to return
	// promptly once ctx is done, such as an in-process fake: one that
	// ignores cancellation then holds the run. It saves a goroutine, a
	// channel and a stack that grows anew on every request (the
	// exhaustive explorer runs millions of short runs).
	InlineModelCalls bool
	// IterationLimit is the harness's guard against a policy that never
	// terminates (the seed with a stop hook that always blocks): the run
	// halts, without a terminal, before starting iteration
	// IterationLimit+1. Zero means [DefaultIterationLimit]; negative means
	// no limit.
	IterationLimit int
}

// DefaultIterationLimit is the iteration guard used when
// Config.IterationLimit is zero.
const DefaultIterationLimit = 10_000

// DefaultCancelGrace is the grace period of Config.CancelGrace.
const DefaultCancelGrace = 2 * time.Second

// Result is how a run ended.
type Result struct {
	// Terminal is why the loop returned.
	Terminal Terminal
	// State is the final state; State.Messages is the final history.
	State State
	// Trace is every event, in order (nil with DiscardTrace).
	Trace Trace
	// Stats are totals over the run.
	Stats Stats
	// Halted is set when the run hit Config.IterationLimit: Terminal is
	// empty and the trace has no terminal event.
	Halted bool
}

// Stats are totals over a run.
type Stats struct {
	Iterations int `json:"iterations"`
	// Requests counts every request sent, main and compaction.
	Requests int `json:"requests"`
	// InputTokens and OutputTokens sum the usage of successful responses.
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// FailedInputTokens sums the input of requests that failed.
	FailedInputTokens int `json:"failed_input_tokens"`
	// DiscardedOutputTokens sums the output of replies the loop dropped
	// (escalation retries, malformed tool use, fallback).
	DiscardedOutputTokens int `json:"discarded_output_tokens"`
	// RetryDelayMS sums the simulated back-off.
	RetryDelayMS int `json:"retry_delay_ms"`
	// PeakTokens is the largest request input count.
	PeakTokens int `json:"peak_tokens"`
}

func (c *Config) validate() error {
	if c.Model == nil {
		return errors.New("config: Model is nil")
	}
	if c.Primary.Name == "" {
		return errors.New("config: Primary.Name is empty")
	}
	if err := c.Primary.validate(); err != nil {
		return fmt.Errorf("config: Primary %w", err)
	}
	if c.FallbackModel.Name != "" {
		if err := c.FallbackModel.validate(); err != nil {
			return fmt.Errorf("config: FallbackModel %w", err)
		}
	}
	if err := checkSize("TokenBudget", c.TokenBudget); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if c.CancelGrace < 0 {
		return fmt.Errorf("config: CancelGrace %s is negative", c.CancelGrace)
	}
	if err := c.Policy.validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// validate checks the model's sizes are positive and at most
// [MaxTokenCount].
func (m ModelInfo) validate() error {
	if m.ContextWindow <= 0 || m.MaxOutputTokens <= 0 {
		return fmt.Errorf("%q: context window %d and max output %d must be positive",
			m.Name, m.ContextWindow, m.MaxOutputTokens)
	}
	if m.ContextWindow > MaxTokenCount || m.MaxOutputTokens > MaxTokenCount {
		return fmt.Errorf("%q: context window %d and max output %d must be at most %d (MaxTokenCount)",
			m.Name, m.ContextWindow, m.MaxOutputTokens, MaxTokenCount)
	}
	return nil
}
