package sim

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./sim -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), string(got),
		"%s differs from the golden file; if the change is intended, run go test ./sim -run %s -update", path, t.Name())
}

// flagModelErrors is a checker that calls every end on an API error (the
// seed's completed after the stop-failure hooks) a safety violation and
// every halt a liveness one.
func flagModelErrors(s *Setting, initial []loop.Message, res *loop.Result) []Violation {
	switch {
	case res.Halted:
		return []Violation{{Invariant: LivenessInvariant, Event: -1, Detail: "halted"}}
	case endedOnAPIError(res):
		return []Violation{{Invariant: "no_api_errors", Event: len(res.Trace) - 1, Detail: "completed after an API error"}}
	}
	return nil
}

// endedOnAPIError reports whether the run completed through the
// stop-failure hooks.
func endedOnAPIError(res *loop.Result) bool {
	for _, e := range res.Trace {
		if _, ok := e.(loop.StopFailureHook); ok {
			return res.Terminal == loop.Completed
		}
	}
	return false
}

// smallReport is a small simulation with a violating checker, so that
// every section of the report has something to show.
func smallReport(t *testing.T) *Report {
	t.Helper()
	settings := []Setting{mustSetting(t, "claude-code"), mustSetting(t, "seed", "workload.swarm=true")}
	res, err := Run(context.Background(), Config{Settings: settings, Episodes: 60, Seed: 3, Workers: 2, Prices: DefaultPrices,
		Check: flagModelErrors})
	require.NoError(t, err)
	return &Report{Command: "go run ./cmd/simulate -n 60 -seed 3", Result: res, CalibrationNote: "Not measured (a test)."}
}

func TestReportMarkdown(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, smallReport(t).WriteMarkdown(&b))
	golden(t, "summary.md", b.Bytes())
}

func TestReportCSV(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, smallReport(t).WriteCSV(&b))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3, "want a header and two settings")
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"setting", "failure_rate", "terminal_completed", "tokens_mean", "cost_usd_p99"} {
		assert.Contains(t, col, h, "no column %q", h)
	}
	assert.Equal(t, "claude-code", rows[1][col["setting"]], "rows: %v / %v", rows[1][:3], rows[2][:3])
	assert.Equal(t, "workload.swarm=true", rows[2][col["params"]], "rows: %v / %v", rows[1][:3], rows[2][:3])
}

func TestReportJSON(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, smallReport(t).WriteJSON(&b))
	var doc struct {
		Seed     uint64 `json:"seed"`
		Settings []struct {
			Name      string                   `json:"name"`
			Episodes  int                      `json:"episodes"`
			Terminals map[string]int           `json:"terminals"`
			Metrics   map[string]MetricSummary `json:"metrics"`
		} `json:"settings"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	require.EqualValues(t, 3, doc.Seed, "%+v", doc)
	require.Len(t, doc.Settings, 2, "%+v", doc)
	require.Equal(t, 60, doc.Settings[0].Episodes, "%+v", doc)
	total := 0
	for _, n := range doc.Settings[0].Terminals {
		total += n
	}
	assert.Equal(t, 60, total, "terminals add up to %d of 60", total)
	assert.False(t, doc.Settings[0].Metrics["tokens"].Mean <= 0, "tokens %+v", doc.Settings[0].Metrics["tokens"])
}
