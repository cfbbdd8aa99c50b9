package properties

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// defaultRootSeed is rapid's seed when -rapid.seed is not given, so that
// the default `go test` explores the same cases every run (and the
// coverage guard cannot flake). Any other -rapid.seed explores others.
const defaultRootSeed = 20_251_129

var (
	update = flag.Bool("update", false, "rewrite the golden files and finding fixtures under testdata/")
	depth  = flag.Int("properties.depth", 0, "exhaustive exploration: script length (0: the default depth)")
)

// rootSeed is rapid's seed for this run.
var rootSeed string

// fuzzMinimizeTime replaces Go's default -test.fuzzminimizetime (60s)
// unless one is given. FuzzInvariants' inputs are rapid's choices: almost
// every shorter input runs out of choices and is skipped, so minimizing
// a new interesting input by bytes finds nothing and took the whole 60
// seconds, for each of the several new inputs a second the fuzzer finds:
// throughput fell to 0 executions a second after the first few dozen.
// rapid's own shrinking and the readable case in a failure's message do
// the minimizing that matters.
const fuzzMinimizeTime = "100x"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if f := flag.Lookup("test.fuzzminimizetime"); f != nil && !given {
		if err := f.Value.Set(fuzzMinimizeTime); err != nil {
			fmt.Fprintln(os.Stderr, "properties: set -test.fuzzminimizetime:", err)
			os.Exit(2)
		}
	}
	if f := flag.Lookup("rapid.seed"); f != nil {
		if f.Value.String() == "0" {
			if err := f.Value.Set(fmt.Sprint(defaultRootSeed)); err != nil {
				fmt.Fprintln(os.Stderr, "properties: set -rapid.seed:", err)
				os.Exit(2)
			}
		}
		rootSeed = f.Value.String()
	}
	os.Exit(m.Run())
}
