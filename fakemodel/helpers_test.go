package fakemodel

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/loop"
)

// req returns a main request of n input tokens.
func req(n int) loop.Request {
	return loop.Request{Purpose: loop.PurposeMain, Model: "m", MaxTokens: 8000, InputTokens: n,
		Messages: []loop.Message{loop.UserText("hi")}}
}

// stream calls m.Stream with a live context and collects the blocks.
func stream(t *testing.T, m *Model, r loop.Request) ([]loop.Block, loop.Response, error) {
	t.Helper()
	return streamCtx(t, context.Background(), m, r)
}

func streamCtx(t *testing.T, ctx context.Context, m *Model, r loop.Request) ([]loop.Block, loop.Response, error) {
	t.Helper()
	var blocks []loop.Block
	resp, err := m.Stream(ctx, r, func(b loop.Block) { blocks = append(blocks, b) })
	return blocks, resp, err
}
