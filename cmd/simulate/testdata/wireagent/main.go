// Command wireagent is package sampleagent's loop as a process, for
// testing `simulate check-agent`: it speaks the API LOOPSIM_API names
// (messages by default) at ANTHROPIC_BASE_URL's server, with the
// prompt of LOOPSIM_PROMPT, prints a result line and exits 0 when the
// session completed, 1 when it failed. -breaks NAME breaks one wire
// invariant on purpose.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/loopsim/loopsim/properties/wirecheck"
	"github.com/loopsim/loopsim/properties/wirecheck/sampleagent"
)

func main() {
	breaks := flag.String("breaks", "", "the wire invariant to break")
	retries := flag.Int("max-retries", 3, "retries in a row before giving up")
	flag.Parse()
	api := os.Getenv(wirecheck.APIVar)
	if api == "" {
		api = "messages"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := sampleagent.Agent{MaxRetries: *retries, Breaks: *breaks}.Run(ctx, sampleagent.Task{
		BaseURL: os.Getenv("ANTHROPIC_BASE_URL"), API: api, Model: wirecheck.DefaultModel,
		Tools: wirecheck.DefaultTools, Prompt: os.Getenv("LOOPSIM_PROMPT")})
	if err != nil {
		fmt.Println(`{"type":"result","subtype":"error"}`)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(`{"type":"result","subtype":"success"}`)
}
