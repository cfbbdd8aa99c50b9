package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

func init() {
	register(command{name: "demo", summary: "run the built-in demonstration (seed profile: a 413, a truncation, a blocking stop hook) and print its trace", run: runDemo})
}

// demoSetup is the demonstration: the seed profile against a scripted
// model that reads a file, hits a 413 (recovered by reactive compaction),
// is truncated (escalated, then done), and is blocked once by a stop hook.
func demoSetup() (loop.Config, []loop.Message, *fakemodel.Model) {
	model := &fakemodel.Model{Window: 200_000, Script: []fakemodel.Step{
		{Text: "Let me look at the failing test.", ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"loop_test.go"}`}}, OutputTokens: 120},
		{Kind: fakemodel.RequestTooLarge},
		{Text: "<summary>The user asked to fix a failing test; the test file was read.</summary>", OutputTokens: 400},
		{Kind: fakemodel.Truncated, Text: "Here is the full rewrite of the test file: ..."},
		{Text: "The fix: the loop now pairs every tool_use with a result.", OutputTokens: 900},
		{Text: "Ran the tests again: they pass now.", OutputTokens: 60},
	}}
	cfg := loop.Config{
		Policy:    loop.Seed(),
		Model:     model,
		Primary:   loop.ModelInfo{Name: "claude-demo", ContextWindow: 200_000, MaxOutputTokens: 64_000},
		ToolNames: []string{"Read"},
		Tools:     &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {Result: "func TestLoop(t *testing.T) {...}", Tokens: 6_000}}},
		StopHooks: &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "tests still fail: run go test ./..."}, {}}},
	}
	return cfg, []loop.Message{loop.UserText("The loop test fails; fix it.")}, model
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the trace as JSON Lines")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: simulate demo [--json]\n\nRuns the seed profile against a scripted fake that hits a 413, a truncation\nand a blocking stop hook before completing, and prints the trace.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "demo: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg, msgs, _ := demoSetup()
	res, err := loop.Run(context.Background(), cfg, msgs)
	if err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return 1
	}
	if *asJSON {
		if err := res.Trace.WriteJSONL(stdout); err != nil {
			fmt.Fprintf(stderr, "demo: %v\n", err)
			return 1
		}
		return 0
	}
	if err := loop.WriteReadable(stdout, res.Trace); err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nterminal %s after %d iterations, %d requests; history %d messages\n",
		res.Terminal, res.Stats.Iterations, res.Stats.Requests, len(res.State.Messages))
	return 0
}
