package fakemodel

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"

	"github.com/loopsim/loopsim/loop"
)

// playback is what one resolved step does to one request: yield blocks,
// then return resp or err, or abort.
type playback struct {
	blocks []loop.Block
	// made is how many made-up "chunk i" text blocks follow blocks; they
	// are built one at a time as they are yielded, so a large After
	// costs nothing until it streams, and stops with the context.
	made  int
	resp  loop.Response
	err   error
	abort bool
}

// chunk is made-up block i (from 0) of a stream that runs past the
// step's content.
func chunk(i int) loop.Block {
	return loop.Block{Type: loop.BlockText, Text: "chunk " + strconv.Itoa(i+1)}
}

// blocksText is "n content block(s)", singular for 1.
func blocksText(n int) string {
	if n == 1 {
		return "1 content block"
	}
	return strconv.Itoa(n) + " content blocks"
}

// defaultTruncatedText is the text of a truncated step with no content.
const defaultTruncatedText = "(output cut at the token limit)"

// play turns a step (not a branch) into a playback for the number-th
// request: a reply, or a fault with its status, message and the blocks
// streamed before it.
func play(s Step, req loop.Request, number, window int) (playback, error) {
	pl := player{s: s, req: req, number: number, input: req.InputTokens}
	if s.InputTokens > 0 {
		pl.input = s.InputTokens
	}
	switch s.kind() {
	case Reply:
		return pl.reply(), nil
	case Empty:
		return playback{resp: loop.Response{StopReason: loop.StopEndTurn,
			Usage: loop.Usage{InputTokens: pl.input, OutputTokens: s.OutputTokens}}}, nil
	case MalformedToolUse:
		return pl.malformedToolUse(), nil
	case Truncated:
		return pl.truncated(), nil
	case PromptTooLong:
		return pl.promptTooLong(window), nil
	case RequestTooLarge:
		return pl.fault(loop.KindRequestTooLarge, "request exceeds the maximum allowed number of bytes"), nil
	case MediaTooLarge:
		return pl.fault(loop.KindMediaTooLarge, "image exceeds 5 MB maximum"), nil
	case ImageSize:
		return pl.fault(loop.KindImageSize, "image exceeds the maximum size checked before sending"), nil
	case Overloaded:
		return pl.fault(loop.KindOverloaded, "overloaded"), nil
	case FallbackTriggered:
		return pl.streamed(pl.fault(loop.KindFallbackTriggered, fmt.Sprintf("model %q is overloaded: switch to the fallback model", req.Model))), nil
	case RateLimited:
		return pl.fault(loop.KindRateLimited, "rate limit exceeded"), nil
	case ServerError:
		return pl.faultStatus(loop.KindServer, cmp.Or(s.Status, loop.KindServer.Status()), "internal server error"), nil
	case ConnectionDropped:
		msg := "connection dropped before a response"
		if s.After > 0 {
			msg = "connection dropped after " + blocksText(s.After)
		}
		if s.CutText != "" {
			msg = "connection dropped inside a block after " + blocksText(s.After)
		}
		status := 0
		if (s.After > 0 || s.CutText != "") && !pl.req.NonStreaming {
			status = loop.StatusStreamBegun
		}
		return pl.cut(pl.streamed(pl.faultStatus(loop.KindConnection, status, msg))), nil
	case InvalidRequest:
		return pl.fault(loop.KindInvalidRequest, "invalid request"), nil
	case OtherStatus:
		return pl.faultStatus(loop.KindOther, s.Status, fmt.Sprintf("status %d", s.Status)), nil
	case StreamError:
		return pl.cut(pl.streamed(pl.fault(loop.KindStream, "error event after "+blocksText(s.After)))), nil
	case Abort:
		return pl.streamed(playback{abort: true}), nil
	case Thrown:
		msg := "the client threw before a response"
		if s.Message != "" {
			msg = s.Message
		}
		return playback{err: errors.New(msg)}, nil
	}
	return playback{}, fmt.Errorf("unknown kind %q", s.Kind)
}

// player plays one step for one request: the number-th, whose input
// tokens the reply reports (the step's InputTokens when set).
type player struct {
	s      Step
	req    loop.Request
	number int
	input  int
}

// answer reports the step's OutputTokens, else fallback, else an
// estimate from the blocks.
func (pl player) answer(blocks []loop.Block, stop loop.StopReason, fallback int) playback {
	output := pl.s.OutputTokens
	if output == 0 {
		output = fallback
	}
	if output == 0 {
		output = estimate(blocks)
	}
	return playback{blocks: blocks, resp: loop.Response{StopReason: stop,
		Usage: loop.Usage{InputTokens: pl.input, OutputTokens: output}}}
}

// reply answers with the step's content, stopping as the step says, else
// at tool_use when it has tool uses, else at end_turn.
func (pl player) reply() playback {
	blocks := content(pl.s, pl.number)
	stop := pl.s.Stop
	if stop == "" {
		stop = loop.StopEndTurn
		if len(pl.s.ToolUses) > 0 {
			stop = loop.StopToolUse
		}
	}
	return pl.answer(blocks, stop, 0)
}

// malformedToolUse answers with a tool_use stop and no tool_use block.
func (pl player) malformedToolUse() playback {
	s := pl.s
	s.ToolUses = nil
	blocks := content(s, pl.number)
	if len(blocks) == 0 {
		blocks = []loop.Block{{Type: loop.BlockText, Text: "I'll use a tool."}}
	}
	return pl.answer(blocks, loop.StopToolUse, 0)
}

// truncated answers cut at max_tokens: a last tool_use keeps its input
// as the script cut it, or half of a whole one, and the output reported
// is the request's max_tokens unless the step says.
func (pl player) truncated() playback {
	blocks := content(pl.s, pl.number)
	if len(blocks) == 0 {
		blocks = []loop.Block{{Type: loop.BlockText, Text: defaultTruncatedText}}
	}
	if last := &blocks[len(blocks)-1]; last.Type == loop.BlockToolUse && (ToolUse{Input: last.Input}).ValidateInput() == nil {
		last.Input = last.Input[:len(last.Input)/2]
	}
	return pl.answer(blocks, loop.StopMaxTokens, pl.req.MaxTokens)
}

// promptTooLong fails with the API's prompt-too-long error, its maximum
// the step's, else the model's window, else one below the input.
func (pl player) promptTooLong(window int) playback {
	maximum := pl.s.Maximum
	if maximum == 0 {
		maximum = window
	}
	if maximum == 0 {
		maximum = max(pl.input-1, 0)
	}
	return playback{err: loop.PromptTooLongError(pl.input, maximum)}
}

// faultStatus fails with kind and status, and the step's message if it
// has one, else msg.
func (pl player) faultStatus(kind loop.ErrorKind, status int, msg string) playback {
	if pl.s.Message != "" {
		msg = pl.s.Message
	}
	return playback{err: &loop.RequestError{Kind: kind, Status: status, Message: msg, RetryAfterMS: pl.s.RetryAfterMS}}
}

// fault fails with the kind's own status (loop.ErrorKind.Status).
func (pl player) fault(kind loop.ErrorKind, msg string) playback {
	return pl.faultStatus(kind, kind.Status(), msg)
}

// cut wraps p's failure with the block the step is cut inside of, if it
// has one.
func (pl player) cut(p playback) playback {
	if pl.s.CutText != "" {
		if re, ok := p.err.(*loop.RequestError); ok {
			p.err = &CutError{Err: re, Block: loop.Block{Type: loop.BlockText, Text: pl.s.CutText}}
		}
	}
	return p
}

// streamed gives p the blocks the step streams before it ends.
func (pl player) streamed(p playback) playback {
	p.blocks, p.made = chunks(pl.s, pl.number)
	return p
}

// content builds the step's blocks: thinking, text, then tool uses.
func content(s Step, number int) []loop.Block {
	var out []loop.Block
	if s.Thinking != "" {
		out = append(out, loop.Block{Type: loop.BlockThinking, Text: s.Thinking})
	}
	if s.Text != "" {
		out = append(out, loop.Block{Type: loop.BlockText, Text: s.Text})
	}
	for k, t := range s.ToolUses {
		id := t.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d_%d", number, k+1)
		}
		input := t.Input
		if input == "" {
			input = "{}"
		}
		out = append(out, loop.Block{Type: loop.BlockToolUse, ID: id, Name: t.Name, Input: input})
	}
	return out
}

// chunks is the first After blocks of the step's content, and how many
// made-up "chunk i" text blocks follow them where the content runs short.
func chunks(s Step, number int) ([]loop.Block, int) {
	blocks := content(s, number)
	if s.After <= len(blocks) {
		return blocks[:s.After], 0
	}
	return blocks, s.After - len(blocks)
}

// estimate is four characters to a token per block, rounded up. Every
// block a step plays carries at least one character (a tool use has a
// name, text and thinking are yielded only when not empty), so a reply
// with content is at least one token.
func estimate(blocks []loop.Block) int {
	n := 0
	for _, b := range blocks {
		n += (len(b.Text) + len(b.Name) + len(b.Input) + 3) / 4
	}
	return n
}
