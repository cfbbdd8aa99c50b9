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
// request.
func play(s Step, req loop.Request, number, window int) (playback, error) {
	input := req.InputTokens
	if s.InputTokens > 0 {
		input = s.InputTokens
	}
	// answer reports the step's OutputTokens, else fallback, else an
	// estimate from the blocks.
	answer := func(blocks []loop.Block, stop loop.StopReason, fallback int) playback {
		output := s.OutputTokens
		if output == 0 {
			output = fallback
		}
		if output == 0 {
			output = estimate(blocks)
		}
		return playback{blocks: blocks, resp: loop.Response{StopReason: stop,
			Usage: loop.Usage{InputTokens: input, OutputTokens: output}}}
	}
	// faultStatus fails with kind and status; fault with the kind's own
	// status (loop.ErrorKind.Status).
	faultStatus := func(kind loop.ErrorKind, status int, msg string) playback {
		if s.Message != "" {
			msg = s.Message
		}
		return playback{err: &loop.RequestError{Kind: kind, Status: status, Message: msg, RetryAfterMS: s.RetryAfterMS}}
	}
	fault := func(kind loop.ErrorKind, msg string) playback { return faultStatus(kind, kind.Status(), msg) }
	switch s.kind() {
	case Reply:
		blocks := content(s, number)
		stop := s.Stop
		if stop == "" {
			stop = loop.StopEndTurn
			if len(s.ToolUses) > 0 {
				stop = loop.StopToolUse
			}
		}
		return answer(blocks, stop, 0), nil
	case Empty:
		return playback{resp: loop.Response{StopReason: loop.StopEndTurn,
			Usage: loop.Usage{InputTokens: input, OutputTokens: s.OutputTokens}}}, nil
	case MalformedToolUse:
		s.ToolUses = nil
		blocks := content(s, number)
		if len(blocks) == 0 {
			blocks = []loop.Block{{Type: loop.BlockText, Text: "I'll use a tool."}}
		}
		return answer(blocks, loop.StopToolUse, 0), nil
	case Truncated:
		blocks := content(s, number)
		if len(blocks) == 0 {
			blocks = []loop.Block{{Type: loop.BlockText, Text: defaultTruncatedText}}
		}
		if last := &blocks[len(blocks)-1]; last.Type == loop.BlockToolUse {
			last.Input = last.Input[:len(last.Input)/2]
		}
		return answer(blocks, loop.StopMaxTokens, req.MaxTokens), nil
	case PromptTooLong:
		maximum := s.Maximum
		if maximum == 0 {
			maximum = window
		}
		if maximum == 0 {
			maximum = max(input-1, 0)
		}
		return playback{err: loop.PromptTooLongError(input, maximum)}, nil
	case RequestTooLarge:
		return fault(loop.KindRequestTooLarge, "request exceeds the maximum allowed number of bytes"), nil
	case MediaTooLarge:
		return fault(loop.KindMediaTooLarge, "image exceeds 5 MB maximum"), nil
	case ImageSize:
		return fault(loop.KindImageSize, "image exceeds the maximum size checked before sending"), nil
	case Overloaded:
		return fault(loop.KindOverloaded, "overloaded"), nil
	case FallbackTriggered:
		p := fault(loop.KindFallbackTriggered, fmt.Sprintf("model %q is overloaded: switch to the fallback model", req.Model))
		p.blocks, p.made = chunks(s, number)
		return p, nil
	case RateLimited:
		return fault(loop.KindRateLimited, "rate limit exceeded"), nil
	case ServerError:
		return faultStatus(loop.KindServer, cmp.Or(s.Status, loop.KindServer.Status()), "internal server error"), nil
	case ConnectionDropped:
		p := fault(loop.KindConnection, "connection dropped before a response")
		if s.After > 0 {
			p = fault(loop.KindConnection, "connection dropped after "+blocksText(s.After))
		}
		p.blocks, p.made = chunks(s, number)
		return p, nil
	case InvalidRequest:
		return fault(loop.KindInvalidRequest, "invalid request"), nil
	case OtherStatus:
		return faultStatus(loop.KindOther, s.Status, fmt.Sprintf("status %d", s.Status)), nil
	case StreamError:
		p := fault(loop.KindStream, "error event after "+blocksText(s.After))
		p.blocks, p.made = chunks(s, number)
		return p, nil
	case Abort:
		p := playback{abort: true}
		p.blocks, p.made = chunks(s, number)
		return p, nil
	case Thrown:
		msg := "the client threw before a response"
		if s.Message != "" {
			msg = s.Message
		}
		return playback{err: errors.New(msg)}, nil
	}
	return playback{}, fmt.Errorf("unknown kind %q", s.Kind)
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
