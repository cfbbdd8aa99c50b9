package sim

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/loop"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./sim -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; if the change is intended, run go test ./sim -run %s -update\n%s",
			path, t.Name(), firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + a + "\n got: " + b
		}
	}
	return ""
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
	if err != nil {
		t.Fatal(err)
	}
	return &Report{Command: "go run ./cmd/simulate -n 60 -seed 3", Result: res, CalibrationNote: "Not measured (a test)."}
}

func TestReportMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := smallReport(t).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.md", b.Bytes())
}

func TestReportCSV(t *testing.T) {
	var b bytes.Buffer
	if err := smallReport(t).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a header and two settings", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"setting", "failure_rate", "terminal_completed", "tokens_mean", "cost_usd_p99"} {
		if _, ok := col[h]; !ok {
			t.Errorf("no column %q", h)
		}
	}
	if rows[1][col["setting"]] != "claude-code" || rows[2][col["params"]] != "workload.swarm=true" {
		t.Errorf("rows: %v / %v", rows[1][:3], rows[2][:3])
	}
}

func TestReportJSON(t *testing.T) {
	var b bytes.Buffer
	if err := smallReport(t).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Seed     uint64 `json:"seed"`
		Settings []struct {
			Name      string                   `json:"name"`
			Episodes  int                      `json:"episodes"`
			Terminals map[string]int           `json:"terminals"`
			Metrics   map[string]MetricSummary `json:"metrics"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seed != 3 || len(doc.Settings) != 2 || doc.Settings[0].Episodes != 60 {
		t.Fatalf("%+v", doc)
	}
	total := 0
	for _, n := range doc.Settings[0].Terminals {
		total += n
	}
	if total != 60 || doc.Settings[0].Metrics["tokens"].Mean <= 0 {
		t.Errorf("terminals add up to %d of 60; tokens %+v", total, doc.Settings[0].Metrics["tokens"])
	}
}
