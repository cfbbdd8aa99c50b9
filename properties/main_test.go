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

func TestMain(m *testing.M) {
	flag.Parse()
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
