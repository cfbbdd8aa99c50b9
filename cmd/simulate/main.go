// Command simulate is loopsim's command line. Each subcommand lives in its
// own file and registers itself; with no subcommand the default one runs.
//
//	go run ./cmd/simulate            # the default subcommand, simulate
//	go run ./cmd/simulate demo       # the built-in demonstration
//	go run ./cmd/simulate help       # list the subcommands
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// command is one subcommand. run gets the arguments after the
// subcommand's name and returns the process exit status.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// defaultCommand runs when the first argument is not a subcommand name:
// the Monte Carlo simulation (simulate.go registers it).
const defaultCommand = "simulate"

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("simulate: subcommand registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			usage(stdout)
			return 0
		}
		if c, ok := commands[args[0]]; ok {
			return c.run(args[1:], stdout, stderr)
		}
	}
	return commands[defaultCommand].run(args, stdout, stderr)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "usage: simulate [subcommand] [flags]\n\nWith no subcommand, %q runs. Subcommands (each takes -h):\n", defaultCommand)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nProfiles: "+strings.Join(loop.Profiles(), ", ")+". See README.md.")
}
