package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopsim/loopsim/sim"
	"github.com/loopsim/loopsim/sim/replay"
	"github.com/loopsim/loopsim/transcript"
)

func init() {
	register(command{name: "replay-session", summary: "replay one real session log through the loop under another policy: compactions, limits, tokens and cost against what really happened", run: runReplaySession})
}

func runReplaySession(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay-session", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sets listFlag
	profile := fs.String("profile", "claude-code", "the profile to replay under")
	fs.Var(&sets, "set", "override `field=value` for the counterfactual replay (as simulate -set); repeatable")
	model := fs.String("model", "", "the model to replay against (default: the session's own, when known; its window from the log otherwise)")
	prices := fs.String("prices", sim.DefaultPrices.String(), "dollars per million tokens: input, cache_write, cache_read, output")
	out := fs.String("out", filepath.Join("out", "replay-session"), "folder for the plot")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: simulate replay-session [flags] FILE

Replays one real session (a Claude Code session log or a Codex rollout)
through the loop: each real call's output and tool calls, and what the
context really gained after it, under -profile as it is and, with -set,
under the changed policy; the whole session is one query (a call that ended
a turn is replayed as a tool call whose result is the user's next prompt).
Prints where each would have compacted or stopped, with requests, tokens and
cost against what really happened, and plots real against replayed context
(OUT/replay-session.png).

Example:
  simulate replay-session -set auto_compact_buffer=60000 session.jsonl

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return simExitOK
		}
		return simExitBadInput
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "replay-session: give one session log (-h for help)")
		return simExitBadInput
	}
	p, err := sim.ParsePrices(*prices, sim.DefaultPrices)
	if err != nil {
		fmt.Fprintf(stderr, "replay-session: -prices: %v\n", err)
		return simExitBadInput
	}
	s, err := transcript.ReadFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "replay-session: %v\n", err)
		return simExitBadInput
	}
	settings, err := replaySettings(s, *profile, *model, sets)
	if err != nil {
		fmt.Fprintf(stderr, "replay-session: %v\n", err)
		return simExitBadInput
	}
	r, err := replay.Session(context.Background(), s, settings, p)
	if err != nil {
		fmt.Fprintf(stderr, "replay-session: %v\n", err)
		return simExitBadInput
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "replay-session: %v\n", err)
		return simExitFailed
	}
	file, err := replay.Plot(*out, "replay-session", r)
	if err != nil {
		fmt.Fprintf(stderr, "replay-session: %v\n", err)
		return simExitFailed
	}
	writeReplay(stdout, s, r)
	fmt.Fprintf(stdout, "\nwrote %s\n", filepath.Join(*out, file))
	return simExitOK
}

// replaySettings are the baseline (the profile against the session's
// model) and, with overrides, the counterfactual.
func replaySettings(s *transcript.Session, profile, model string, sets []string) ([]sim.Setting, error) {
	base, err := sim.NewSetting(profile)
	if err != nil {
		return nil, fmt.Errorf("-profile: %w", err)
	}
	if model == "" {
		model = s.Model()
		if known, err := base.With("model", model); err == nil {
			base = known
		} else if s.Window > 0 {
			base.Model.Name, base.Model.ContextWindow = model, s.Window
		}
	} else if base, err = base.With("model", model); err != nil {
		return nil, fmt.Errorf("-model: %w", err)
	}
	base.Params = nil
	base.Name = profile
	out := []sim.Setting{base}
	if len(sets) == 0 {
		return out, nil
	}
	cf := base
	for _, kv := range sets {
		field, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("-set %q: want field=value", kv)
		}
		if cf, err = cf.With(strings.TrimSpace(field), value); err != nil {
			return nil, fmt.Errorf("-set: %w", err)
		}
	}
	return append(out, cf), nil
}

// writeReplay prints the comparison.
func writeReplay(w io.Writer, s *transcript.Session, r *replay.Result) {
	fmt.Fprintf(w, "%s: %d calls of %s, replayed against %s (window %d)\n\n", r.Name, r.Calls, s.Model(), r.Settings[0].Model.Name,
		r.Settings[0].Model.ContextWindow)
	sides := append([]replay.Side{r.Real}, r.Sides...)
	width := 12
	for _, sd := range sides {
		width = max(width, len(sd.Label))
	}
	fmt.Fprintf(w, "%-*s  %8s  %8s  %11s  %8s  %10s  %9s  %s\n", width, "", "calls", "requests", "compactions", "peak", "tokens", "cost", "ended")
	for i, sd := range sides {
		ended := sd.Terminal
		if i == 0 {
			ended = "as logged"
		}
		fmt.Fprintf(w, "%-*s  %8d  %8d  %11s  %8s  %10s  %9s  %s\n", width, sd.Label, sd.Replayed(), sd.Requests, compactionCalls(sd.Compactions),
			sim.FormatTokens(float64(sd.Peak)), sim.FormatTokens(float64(sd.Tokens)), fmt.Sprintf("$%.2f", float64(sd.CostMicroUSD)/1e6), ended)
	}
	base := r.Sides[0]
	for _, sd := range r.Sides[1:] {
		fmt.Fprintf(w, "\n%s against %s: tokens %+.1f%%, cost %+.1f%%, %d compactions instead of %d\n", sd.Label, base.Label,
			pct(sd.Tokens, base.Tokens), pct(sd.CostMicroUSD, base.CostMicroUSD), len(sd.Compactions), len(base.Compactions))
	}
	fmt.Fprintf(w, "\nreplay of the profile as it is against the real session: tokens %+.1f%%, cost %+.1f%% (the replay's prompt cache is a model)\n",
		pct(base.Tokens, r.Real.Tokens), pct(base.CostMicroUSD, r.Real.CostMicroUSD))
	for _, n := range r.Real.Notes {
		fmt.Fprintln(w, "note: real session: "+n)
	}
}

// compactionCalls lists the calls compactions came before: "2 (at 97, 160)".
func compactionCalls(calls []int) string {
	if len(calls) == 0 {
		return "0"
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = fmt.Sprint(c)
	}
	if len(parts) > 3 {
		parts = append(parts[:3], "...")
	}
	return fmt.Sprintf("%d (at %s)", len(calls), strings.Join(parts, ", "))
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a-b) / float64(b)
}
