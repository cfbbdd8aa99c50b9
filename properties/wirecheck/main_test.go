package wirecheck

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// defaultRootSeed is rapid's seed when -rapid.seed is not given, so that
// the package's property tests draw the same cases on every run; pass
// -rapid.seed=N for others.
const defaultRootSeed = 20_261_202

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("rapid.seed"); f != nil && f.Value.String() == "0" {
		if err := f.Value.Set(fmt.Sprint(defaultRootSeed)); err != nil {
			fmt.Fprintln(os.Stderr, "wirecheck: set -rapid.seed:", err)
			os.Exit(2)
		}
	}
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"), goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		// the genai SDK's dependency starts a worker at init
		goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}
