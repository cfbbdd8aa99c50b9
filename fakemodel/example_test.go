package fakemodel_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// A scripted model answers each request with the next step: a tool call,
// then a prompt-too-long the loop recovers from by compacting (the
// compaction request takes the next step), then the final answer. After
// the run the fakes hold what the loop sent them.
func ExampleModel() {
	model := &fakemodel.Model{Window: 200_000, KeepMessages: true, Script: []fakemodel.Step{
		{ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}},
		{Kind: fakemodel.PromptTooLong},
		{Text: "<summary>read a.go</summary>"},
		{Text: "done"},
	}}
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {Result: "package a", Tokens: 3_000}}}
	cfg := loop.Config{Policy: loop.Seed(), Model: model, Tools: tools, ToolNames: []string{"Read"},
		Primary: loop.ModelInfo{Name: "sonnet", ContextWindow: 200_000, MaxOutputTokens: 64_000}}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("read a.go")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Terminal, res.Trace.Transitions())
	for _, req := range model.Requests {
		fmt.Println(req.Purpose, len(req.Messages), "messages")
	}
	fmt.Println("tool calls:", tools.CallIDs())
	// Output:
	// completed [next_turn reactive_compact_retry]
	// main 1 messages
	// main 3 messages
	// compact 4 messages
	// main 1 messages
	// tool calls: [toolu_1_1]
}
