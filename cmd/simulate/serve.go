package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/loopsim/loopsim/agents"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

func init() {
	register(command{name: "serve", summary: "serve every model API (Messages, ...) from a scenario (or the stochastic workload) until interrupted", run: serve})
}

// serveSignals are what stop `simulate serve`; a test replaces them with
// its own channel.
var serveSignals = func() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// serveUsage is `simulate serve -h`'s text before the flags.
const serveUsage = `usage: simulate serve [-addr HOST:PORT] [-records FILE] [-delay D] [-preset NAME [-cmd PATH]] [SCENARIO]

Serves every model API loopsim speaks (the Anthropic Messages API, POST
/v1/messages, and the others of docs/wire.md) on one local base URL and
prints the variables that point each API's clients at it
(ANTHROPIC_BASE_URL=..., one a line, with dummy keys), then serves until
interrupted (Ctrl-C). With a scenario file the answers are its script
(or answers by purpose and model); without one they come from a seeded
episode of the stochastic workload (fakemodel.DefaultWorkload). When
stopped it prints the request sequence (M:text, C:text, M:529, ...).
With -preset it also makes the agent's temporary home (its config file
naming the server), prints the variables that select it (HOME=...) after
the others, and on stderr the command that runs the agent there; the
home is removed when the server stops.

`

func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (port 0: a free port)")
	records := fs.String("records", "", "write every request, normalized, as JSON Lines to this file when stopped")
	delay := fs.Duration("delay", 0, "wait this long before each streamed event (a slow stream)")
	seed := fs.Uint64("seed", 1, "without a scenario: the seed of the workload episode")
	model := fs.String("model", "claude-sonnet-4-5", "without a scenario: the model whose window the workload fills (a catalog name)")
	preset := fs.String("preset", "", "also make a released agent's temporary home pointed at the server (a preset of docs/agents.md: "+strings.Join(agents.Names(), ", ")+"), print its variables and the command that runs it")
	bin := fs.String("cmd", "", "with -preset: the path of the agent's binary (default: its name looked up on PATH)")
	fs.Usage = func() {
		fmt.Fprint(stderr, serveUsage)
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return exitPass
	}
	if err != nil {
		return exitBadInput
	}
	if len(paths) > 1 {
		fmt.Fprintln(stderr, "serve: at most one scenario file")
		return exitBadInput
	}
	var p agents.Preset
	var path string
	if *preset != "" {
		if p, err = agents.Lookup(*preset); err == nil {
			path, err = p.Find(*bin)
		}
		if err != nil {
			fmt.Fprintf(stderr, "serve: -preset: %v\n", err)
			return exitBadInput
		}
	}
	srv, err := startServer(paths, wire.Options{Addr: *addr, EventDelay: *delay}, *seed, *model)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitBadInput
	}
	for _, kv := range fakeapi.ClientEnv(srv.URL) {
		fmt.Fprintln(stdout, kv)
	}
	if *preset != "" {
		cleanup, err := announcePreset(p, path, srv.URL, stdout, stderr)
		if err != nil {
			srv.Close()
			fmt.Fprintf(stderr, "serve: %v\n", err)
			return exitBadInput
		}
		defer cleanup()
	}
	fmt.Fprintf(stderr, "serve: %s at %s (set the variables above in the agent's environment; docs/wire.md gives each SDK's base-URL setting)\n",
		strings.Join(apiNames(srv), ", "), srv.URL)
	return serveUntilStopped(srv, *records, stderr)
}

// announcePreset makes preset p's temporary home pointed at the server at
// url, prints the variables that select it on stdout and the command
// that runs the agent (the binary at path) on stderr, and returns what
// removes the home.
func announcePreset(p agents.Preset, path, url string, stdout, stderr io.Writer) (func(), error) {
	ws, err := p.Workspace(url)
	if err != nil {
		return nil, err
	}
	for _, kv := range ws.Env {
		fmt.Fprintln(stdout, kv)
	}
	fmt.Fprintf(stderr, "serve: run %s %s in %s with the variables above and %s set to the prompt:\n  cd %s && %s\n",
		p.Name, p.Version, ws.Dir, agents.PromptVar, ws.Dir, p.Command(path))
	return ws.Cleanup, nil
}

// serveUntilStopped serves until a stop signal, then closes the server,
// prints the request sequence and writes the records to file when one is
// named.
func serveUntilStopped(srv *wire.Server, file string, stderr io.Writer) int {
	sigs, stop := serveSignals()
	defer stop()
	<-sigs
	srv.Close()
	recs := srv.Requests()
	fmt.Fprintf(stderr, "serve: %d requests: %v\n", len(recs), wire.Labels(recs))
	if file != "" {
		if err := writeRecords(file, recs); err != nil {
			fmt.Fprintf(stderr, "serve: %v\n", err)
			return exitBadInput
		}
	}
	return exitPass
}

// writeRecords writes records as JSON Lines to file.
func writeRecords(file string, recs []wire.Record) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := wire.WriteJSONL(f, recs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// startServer starts the server for `simulate serve`: playing the
// scenario file of paths, or without one a seeded episode of the
// stochastic workload filling model's window.
func startServer(paths []string, opts wire.Options, seed uint64, model string) (*wire.Server, error) {
	if len(paths) == 1 {
		s, err := scenarios.LoadFile(paths[0])
		if err != nil {
			return nil, err
		}
		srv, _, err := s.Server(opts)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		return srv, nil
	}
	k, err := loop.LookupModel(model)
	if err != nil {
		return nil, fmt.Errorf("serve: -model: %w", err)
	}
	for _, c := range loop.Catalog {
		opts.Models = append(opts.Models, c.ModelInfo)
	}
	// an abort the workload draws ends the response being answered
	var h *wire.Handler
	ep := fakemodel.DefaultWorkload().Episode(fakemodel.Seeds{Workload: seed, Faults: seed}, k.ContextWindow, func() { h.Abort() })
	h = fakeapi.NewHandler(ep, opts)
	srv, err := h.Listen()
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return srv, nil
}

// apiNames are the names of the APIs srv speaks.
func apiNames(srv *wire.Server) []string {
	var out []string
	for _, api := range srv.Handler().APIs() {
		out = append(out, api.Name())
	}
	return out
}
