// Package sampleagent is a small agent loop of the kind a user writes,
// over the official SDKs (sdkmodel and its API packages): it answers
// every tool call, retries failures up to a budget waiting out a
// retry-after, compacts when the window overflows and stops with an
// error when it cannot go on. Its Breaks field makes it break one wire
// invariant of package wirecheck on purpose.
//
// It is wirecheck's sample agent: the agent of its tests and benchmark,
// and, built as a command (cmd/simulate/testdata/wireagent), the process
// agent of `simulate check-agent`'s tests.
package sampleagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel"
	"github.com/loopsim/loopsim/sdkmodel/chat"
	"github.com/loopsim/loopsim/sdkmodel/gemini"
	"github.com/loopsim/loopsim/sdkmodel/responses"
)

// Agent is the loop's settings.
type Agent struct {
	// MaxRetries is how many times a failed request is retried in a row.
	MaxRetries int
	// Breaks names the wirecheck invariant the agent breaks on purpose;
	// empty: none.
	Breaks string
}

// Task is one session: where the server is and what to do.
type Task struct {
	// BaseURL is the server's base URL; OpenAI's APIs are under
	// BaseURL+"/v1".
	BaseURL string
	// API is the API to speak: messages, chat, responses or gemini.
	API string
	// Model is the model asked for.
	Model loop.ModelInfo
	// Tools are the tools offered.
	Tools []string
	// Prompt is the user's task.
	Prompt string
}

// Model is the SDK model of t's API.
func Model(t Task) (loop.Model, error) {
	switch t.API {
	case "messages":
		return sdkmodel.New(sdkmodel.Config{BaseURL: t.BaseURL, APIKey: "k"})
	case "chat":
		return chat.New(chat.Config{BaseURL: t.BaseURL + "/v1", APIKey: "k"})
	case "responses":
		return responses.New(responses.Config{BaseURL: t.BaseURL + "/v1", APIKey: "k"})
	case "gemini":
		return gemini.New(gemini.Config{BaseURL: t.BaseURL, APIKey: "k"})
	}
	return nil, fmt.Errorf("sampleagent: no model for API %q", t.API)
}

func text(role loop.Role, s string) loop.Message {
	return loop.Message{Role: role, Blocks: []loop.Block{{Type: loop.BlockText, Text: s}}}
}

// Run runs one session of the loop: nil when it completed, an error
// when it could not go on.
//
// It is over 80 lines on purpose: it is the one loop a user would write,
// and each deliberate break sits on the line of the loop it breaks, so a
// reader sees what each broken agent does differently; split into steps,
// the breaks would scatter.
func (a Agent) Run(ctx context.Context, t Task) error {
	m, err := Model(t)
	if err != nil {
		return err
	}
	history := []loop.Message{text(loop.RoleUser, t.Prompt)}
	maxTokens := min(8_192, t.Model.MaxOutputTokens)
	if a.Breaks == "max-tokens-within-model" {
		maxTokens = t.Model.MaxOutputTokens + 1
	}
	// since counts the main replies since the last compaction; -1 before
	// the first
	retries, compacted, lastInput, since := 0, false, 0, -1
	for turn := 0; turn < 20; turn++ {
		if lastInput >= t.Model.ContextWindow*9/10 {
			if since == 1 && a.Breaks != "bounded-compaction" {
				// the broken agent does not stop: it compacts after every reply
				return fmt.Errorf("the context is near the window again one reply after a compaction (%d input tokens): compacting frees nothing", lastInput)
			}
			// near the window: compact before the next request
			if history, err = a.compact(ctx, m, t, history, maxTokens); err != nil {
				return err
			}
			lastInput, compacted, since = 0, true, 0
			continue
		}
		if a.Breaks == "session-ends" && turn == 1 {
			<-ctx.Done() // waits for something that never comes
			return ctx.Err()
		}
		req := loop.Request{Purpose: loop.PurposeMain, Model: t.Model.Name, MaxTokens: maxTokens, Messages: history, Tools: t.Tools}
		var blocks []loop.Block
		resp, err := m.Stream(ctx, req, func(b loop.Block) { blocks = append(blocks, b) })
		if err != nil {
			var re *loop.RequestError
			if !errors.As(err, &re) {
				return err
			}
			switch re.Kind {
			case loop.KindRateLimited, loop.KindServer, loop.KindOverloaded, loop.KindConnection, loop.KindStream:
				if retries >= a.MaxRetries && a.Breaks != "bounded-retries" {
					return fmt.Errorf("gave up after %d retries: %w", retries, err)
				}
				retries++
				wait := time.Duration(re.RetryAfterMS) * time.Millisecond
				if a.Breaks == "retry-after-honoured" {
					wait = 0
				}
				if err := sleep(ctx, wait); err != nil {
					return err
				}
				continue
			case loop.KindPromptTooLong:
				if a.Breaks == "overflow-shrinks" {
					continue // sends the same request again
				}
				if compacted {
					return fmt.Errorf("the context still overflows after a compaction: %w", err)
				}
				compacted, since = true, 0
				if history, err = a.compact(ctx, m, t, history, maxTokens); err != nil {
					return err
				}
				continue
			}
			if a.Breaks == "failure-reported" {
				return nil
			}
			return err
		}
		retries, compacted, lastInput = 0, false, resp.Usage.InputTokens
		if since >= 0 {
			since++
		}
		if a.Breaks == "bounded-compaction" {
			lastInput = t.Model.ContextWindow // it compacts after every reply
		}
		reply := loop.Message{Role: loop.RoleAssistant, Blocks: blocks, StopReason: resp.StopReason}
		var results []loop.Block
		for _, b := range blocks {
			if b.Type == loop.BlockToolUse {
				results = append(results, loop.Block{Type: loop.BlockToolResult, ToolUseID: b.ID, Text: "package main"})
			}
		}
		if a.Breaks == "no-double-billing" && len(results) > 0 && turn == 0 {
			continue // asks the same again, as after a timeout it misjudged
		}
		if len(blocks) > 0 {
			history = append(history, reply)
		}
		switch {
		case len(results) > 0:
			if a.Breaks == "tool-calls-answered" {
				results = results[1:]
			}
			history = append(history, loop.Message{Role: loop.RoleUser, Blocks: append(results, loop.Block{Type: loop.BlockText, Text: "Go on."})})
		case resp.StopReason == loop.StopMaxTokens || len(blocks) == 0:
			history = append(history, text(loop.RoleUser, "Go on."))
		case a.Breaks == "no-request-after-end":
			history = append(history, text(loop.RoleUser, "Anything else?"))
		default:
			return nil
		}
	}
	return errors.New("too many turns")
}

// compact asks for a summary and starts the history again from it.
func (a Agent) compact(ctx context.Context, m loop.Model, t Task, history []loop.Message, maxTokens int) ([]loop.Message, error) {
	for tries := 0; ; tries++ {
		msgs := append(append([]loop.Message(nil), history...), text(loop.RoleUser, loop.SummariseInstruction))
		if msgs[len(msgs)-2].Role == loop.RoleUser {
			// two user messages in a row: fold the instruction into the last
			last := msgs[len(msgs)-2]
			last.Blocks = append(append([]loop.Block(nil), last.Blocks...), loop.Block{Type: loop.BlockText, Text: loop.SummariseInstruction})
			msgs = append(msgs[:len(msgs)-2], last)
		}
		req := loop.Request{Purpose: loop.PurposeCompact, Model: t.Model.Name, MaxTokens: maxTokens, Messages: msgs, NonStreaming: true}
		var blocks []loop.Block
		_, err := m.Stream(ctx, req, func(b loop.Block) { blocks = append(blocks, b) })
		if err == nil {
			var sum strings.Builder
			for _, b := range blocks {
				sum.WriteString(b.Text)
			}
			return []loop.Message{text(loop.RoleUser, "Go on from this summary: "+strings.TrimPrefix(sum.String(), wire.SummaryTag))}, nil
		}
		var re *loop.RequestError
		if !errors.As(err, &re) || tries >= a.MaxRetries {
			return nil, fmt.Errorf("compaction failed: %w", err)
		}
		if err := sleep(ctx, time.Duration(re.RetryAfterMS)*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
