package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// CompactTrigger says why a compaction runs.
type CompactTrigger string

// Compaction triggers.
const (
	TriggerAuto     CompactTrigger = "auto"
	TriggerReactive CompactTrigger = "reactive"
)

// Caller sends one request through the loop's model seam (with its retry
// layer, recorded in the trace) and collects the whole reply.
type Caller interface {
	Call(ctx context.Context, req Request) (Reply, error)
}

// Reply is a whole, successful response.
type Reply struct {
	Blocks   []Block
	Response Response
}

// Text is the concatenated text of the reply's text blocks.
func (r Reply) Text() string {
	var b strings.Builder
	for _, x := range r.Blocks {
		if x.Type == BlockText {
			b.WriteString(x.Text)
		}
	}
	return b.String()
}

// CompactRequest is what a compaction is asked to summarise.
type CompactRequest struct {
	// Trigger is auto or reactive.
	Trigger CompactTrigger
	// Messages is the conversation to compact (messages after the last
	// boundary); valid only during the call (copy it to keep it).
	Messages []Message
	// Tokens is the loop's count of Messages.
	Tokens int
	// Model, MaxTokens and Tools shape a summarise request like a main one.
	Model     string
	MaxTokens int
	Tools     []string
	// PreserveTail is how many of the newest exchanges to keep verbatim
	// (the compactor never keeps every exchange).
	PreserveTail int
	// Call sends requests through the loop's model seam.
	Call Caller
}

// CompactResult is a successful compaction.
type CompactResult struct {
	// Summary is the summary text.
	Summary string
	// SummaryTokens is the summary's size; zero means estimate.
	SummaryTokens int
	// Keep is how many of the newest messages of the request stay verbatim
	// after the summary.
	Keep int
}

// Compactor is the compaction seam, used for auto and reactive compaction.
// An error (or a panic) is a failed compaction.
type Compactor interface {
	Compact(ctx context.Context, req CompactRequest) (CompactResult, error)
}

// SummaryCompactor compacts by asking the model for a summary through the
// request's Caller: the older part of the conversation with a summarise
// instruction appended, the newest exchanges kept verbatim. It is the
// loop's default compactor; its fields come from the policy.
type SummaryCompactor struct {
	// MaxCalls is how many requests one compaction may make.
	MaxCalls int
	// ReaskMissingTags is how many times a summary without <summary> tags
	// is asked for again before it is accepted.
	ReaskMissingTags int
	// DropOldestOnOverflow drops the oldest exchange when the summarise
	// request is itself too long, and tries again.
	DropOldestOnOverflow bool
	// OverflowResends is how many times in a row a summarise request that
	// is too long is re-sent unchanged before it is trimmed (with
	// DropOldestOnOverflow).
	OverflowResends int
	// OverflowDropsPrompt makes that trim drop the leading prompt,
	// [OverflowMarker] in its place, and summarise every round, the kept
	// tail too (nothing is kept); once the prompt is gone a later trim
	// drops the oldest exchange. False: the trim drops the oldest exchange.
	OverflowDropsPrompt bool
}

// OverflowMarker stands in for the prompt an OverflowDropsPrompt trim of
// [SummaryCompactor] dropped.
const OverflowMarker = "[The start of the conversation was dropped: it was too long to summarise.]"

// SummariseInstruction is the text appended to a compaction request.
const SummariseInstruction = "Summarise the conversation so far for a continuation. Put the summary between <summary> and </summary>."

// ReaskInstruction asks again for a summary that came back without tags.
const ReaskInstruction = "Your reply had no <summary> tags. Answer again with the summary between <summary> and </summary>."

// ErrEmptySummary is a compaction reply with no text.
var ErrEmptySummary = errors.New("compaction reply is empty")

// Compact implements [Compactor].
func (c SummaryCompactor) Compact(ctx context.Context, req CompactRequest) (CompactResult, error) {
	if req.Call == nil {
		return CompactResult{}, errors.New("summary compactor: no caller")
	}
	cut := tailStart(req.Messages, req.PreserveTail)
	older := req.Messages[:cut]
	keep := len(req.Messages) - cut
	var extra []Message
	reasked, resent, promptDropped := 0, 0, false
	for calls := 1; ; calls++ {
		if calls > max(c.MaxCalls, 1) {
			return CompactResult{}, fmt.Errorf("summary compactor: %d calls used up", max(c.MaxCalls, 1))
		}
		msgs := make([]Message, 0, len(older)+1+len(extra))
		msgs = append(msgs, older...)
		msgs = append(msgs, Message{Role: RoleUser, Meta: true, Blocks: []Block{{Type: BlockText, Text: SummariseInstruction}}, Tokens: blockTokens(Block{Text: SummariseInstruction})})
		msgs = append(msgs, extra...)
		reply, err := req.Call.Call(ctx, Request{Purpose: PurposeCompact, Model: req.Model, MaxTokens: req.MaxTokens,
			Messages: msgs, InputTokens: SumTokens(msgs), Tools: req.Tools})
		if err != nil {
			re := asRequestError(err)
			if ctx.Err() != nil || re == nil {
				return CompactResult{}, fmt.Errorf("summary compactor: call %d: %w", calls, err)
			}
			switch {
			case re.Kind == KindPromptTooLong && c.DropOldestOnOverflow && resent < c.OverflowResends:
				resent++
				continue
			case re.Kind == KindPromptTooLong && c.DropOldestOnOverflow && c.OverflowDropsPrompt && !promptDropped:
				all := Exchanges(req.Messages)
				if len(all) < 2 || req.Messages[0].Role == RoleAssistant {
					return CompactResult{}, fmt.Errorf("summary compactor: call %d: no prompt to drop: %w", calls, err)
				}
				marker := Message{Role: RoleUser, Meta: true, Blocks: []Block{{Type: BlockText, Text: OverflowMarker}},
					Tokens: blockTokens(Block{Text: OverflowMarker})}
				older = append([]Message{marker}, req.Messages[all[1]:]...)
				keep, resent, promptDropped = 0, 0, true
				continue
			case re.Kind == KindPromptTooLong && c.DropOldestOnOverflow:
				resent = 0
				starts := Exchanges(older)
				if len(starts) < 2 {
					return CompactResult{}, fmt.Errorf("summary compactor: call %d: nothing left to drop: %w", calls, err)
				}
				older = older[starts[1]:]
				continue
			case re.Kind == KindInvalidRequest:
				continue
			}
			return CompactResult{}, fmt.Errorf("summary compactor: call %d: %w", calls, err)
		}
		text := reply.Text()
		if strings.TrimSpace(text) == "" {
			return CompactResult{}, fmt.Errorf("summary compactor: call %d: %w", calls, ErrEmptySummary)
		}
		if !strings.Contains(text, "<summary>") && reasked < c.ReaskMissingTags {
			reasked++
			extra = append(extra,
				Message{Role: RoleAssistant, Blocks: reply.Blocks, Tokens: reply.Response.Usage.OutputTokens},
				Message{Role: RoleUser, Meta: true, Blocks: []Block{{Type: BlockText, Text: ReaskInstruction}}, Tokens: blockTokens(Block{Text: ReaskInstruction})})
			continue
		}
		return CompactResult{Summary: text, SummaryTokens: reply.Response.Usage.OutputTokens, Keep: keep}, nil
	}
}
