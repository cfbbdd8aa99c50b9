package reports

import (
	"bytes"
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// recordOf is a record of one setting made of rows.
func recordOf(file string, s sim.Setting, seed uint64, rows []Row, checked bool) *Record {
	for i := range rows {
		rows[i].Setting, rows[i].Episode = 0, int64(i)
	}
	return &Record{File: file, Rows: rows, Header: Header{Schema: SchemaVersion, Command: "go run ./cmd/simulate -n " + itoa(len(rows)),
		Seed: seed, Episodes: len(rows), Prices: sim.DefaultPrices, Checked: checked, Settings: []sim.Setting{s},
		Build: Build{Module: "github.com/loopsim/loopsim", Version: "(devel)", Revision: "0123456789abcdef0123", GoVersion: "go1.26"}}}
}

func itoa(n int) string { return thousands(n) }

// simulatedRows plays n episodes of s from root seed and returns their
// rows, invariants unchecked.
func simulatedRows(t *testing.T, s sim.Setting, root uint64, n int) []Row {
	t.Helper()
	rows := make([]Row, n)
	_, err := sim.Run(context.Background(), sim.Config{Settings: []sim.Setting{s}, Episodes: n, Seed: root, Prices: sim.DefaultPrices,
		OnEpisode: func(i int, ep *sim.Episode) { rows[ep.Index] = RowOf(i, ep) }})
	require.NoError(t, err)
	return rows
}

// TestVerdictCalibration: two identical policies on different episodes
// come out "~" at the nominal rate. 1,200 episodes of the claude-code
// profile are split into 24 comparisons of 25 against 25 (unpaired,
// different seeds); over all the tests of all the comparisons, the
// share of raw p-values below 0.05 stays near 5% (the rank and rate
// tests are conservative on ties and rare events, so below it rather
// than above), and Holm's correction keeps the share of comparisons
// with any non-"~" verdict at most about 5%.
func TestVerdictCalibration(t *testing.T) {
	s := setting(t, "claude-code", "workload.faults.stop_hook_block", "0.3")
	rows := simulatedRows(t, s, 11, 1200)
	var tests, rejected, flagged, comparisons int
	for k := 0; k+50 <= len(rows); k += 50 {
		base := recordOf("b", s, 11, append([]Row(nil), rows[k:k+25]...), false)
		cand := recordOf("c", s, 11, append([]Row(nil), rows[k+25:k+50]...), false)
		c, err := Compare(base, cand, Options{})
		require.NoError(t, err)
		sc := c.Settings[0]
		require.False(t, sc.Paired)
		comparisons++
		any := false
		for _, r := range sc.Rows {
			tests++
			if r.P < 0.05 {
				rejected++
			}
			if r.Verdict != Same {
				any = true
			}
		}
		if any {
			flagged++
		}
	}
	rate := float64(rejected) / float64(tests)
	t.Logf("%d comparisons, %d tests: %.1f%% raw p < 0.05, %d comparisons with a verdict", comparisons, tests, 100*rate, flagged)
	assert.Greater(t, tests, 300)
	assert.InDelta(t, 0.04, rate, 0.035, "raw rejection rate")
	assert.LessOrEqual(t, flagged, 2, "comparisons of identical policies with a significant verdict")
}

// TestPlantedDifference: stop_hook_block_cap 0 (no cap) against 8 under
// stop hooks that keep blocking is found: more stop-hook blocks, more
// requests and a higher cost, paired by seed, and a cost rule catches it.
func TestPlantedDifference(t *testing.T) {
	hooks := []string{"workload.faults.stop_hook_block", "0.3", "workload.faults.stop_hook_repeat", "0.9",
		"workload.after_block.mean", "0", "workload.after_block.max", "0"}
	capped := setting(t, "claude-code", append([]string{"stop_hook_block_cap", "8"}, hooks...)...)
	uncapped := setting(t, "claude-code", append([]string{"stop_hook_block_cap", "0"}, hooks...)...)
	base := recordOf("cap8.parquet", capped, 5, simulatedRows(t, capped, 5, 300), false)
	cand := recordOf("cap0.parquet", uncapped, 5, simulatedRows(t, uncapped, 5, 300), false)
	c, err := Compare(base, cand, Options{})
	require.NoError(t, err)
	sc := c.Settings[0]
	assert.True(t, sc.Paired)
	assert.Equal(t, []string{"stop_hook_block_cap: 8 -> 0"}, sc.Changes)
	verdicts := map[string]Verdict{}
	for _, r := range sc.Rows {
		verdicts[r.Metric] = r.Verdict
	}
	assert.Equal(t, Changed, verdicts["stop_hook_blocks"])
	assert.Equal(t, Worse, verdicts["requests"])
	assert.Equal(t, Worse, verdicts["cost_usd"])

	rules, err := ParseRules("failure_rate>+0.5pp,cost>+1%")
	require.NoError(t, err)
	regs := c.Regressions(rules)
	require.Len(t, regs, 1)
	assert.Equal(t, "cost>+1%", regs[0].Rule)
	// The same comparison the other way is an improvement, no regression.
	back, err := Compare(cand, base, Options{})
	require.NoError(t, err)
	assert.Empty(t, back.Regressions(rules))
}

// synthetic draws rows from a seeded stream: tokens log-normal-ish,
// cost from tokens, a failure with probability fail; shift scales the
// tokens.
func synthetic(seed uint64, n int, fail, shift float64, violate int) []Row {
	r := rand.New(rand.NewPCG(seed, 7))
	rows := make([]Row, n)
	for i := range rows {
		tok := int64(float64(20_000+r.IntN(400_000)) * shift)
		row := Row{Seed: uint64(1000 + i), Terminal: "completed", Tokens: tok, InputTokens: tok - 2_000, OutputTokens: 2_000,
			Requests: int64(5 + r.IntN(30)), CostMicroUSD: tok * 3, Turns: int64(3 + r.IntN(20))}
		if r.Float64() < fail {
			row.Terminal, row.Failed = "api_error", true
		}
		if i == violate {
			row.Violations, row.Invariants = 1, "tool-result-pairing"
		}
		rows[i] = row
	}
	return rows
}

func goldenPair(t *testing.T) (*Record, *Record) {
	t.Helper()
	base := setting(t, "claude-code", "auto_compact_buffer", "13000")
	cand := setting(t, "claude-code", "auto_compact_buffer", "20000")
	b := recordOf("base.parquet", base, 1, synthetic(1, 400, 0.02, 1, -1), true)
	c := recordOf("candidate.parquet", cand, 1, synthetic(1, 400, 0.06, 1.08, 17), true)
	c.Header.Build.Revision = "fedcba9876543210fedc"
	b.Behaviour = &Behaviour{Scenarios: []ScenarioRun{
		{Name: "cc-stop-hook-cap", Verdict: VerdictPass, Terminal: "completed", Transitions: nil, Requests: 9, Digest: "aa", Trace: "{\"kind\":\"request\"}\n{\"kind\":\"terminal\"}\n"},
		{Name: "seed-413-recovery", Verdict: VerdictPass, Terminal: "completed", Requests: 3, Digest: "bb", Trace: "{}\n"},
	}}
	c.Behaviour = &Behaviour{Scenarios: []ScenarioRun{
		{Name: "cc-stop-hook-cap", Verdict: VerdictFail, Terminal: "api_error", Transitions: nil, Requests: 10, Digest: "ab", Trace: "{\"kind\":\"request\"}\n{\"kind\":\"retry\"}\n{\"kind\":\"terminal\"}\n"},
		{Name: "seed-413-recovery", Verdict: VerdictPass, Terminal: "completed", Requests: 3, Digest: "bb", Trace: "{}\n"},
	}}
	return b, c
}

// TestCompareGolden pins the Markdown of one small report, made of
// synthetic records so that it does not move with the loop.
// go test ./reports -run Golden -update rewrites it.
func TestCompareGolden(t *testing.T) {
	b, c := goldenPair(t)
	cmp, err := Compare(b, c, Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, cmp.WriteMarkdown(&buf, []Figure{{File: "forest.png", Caption: "Every metric's delta with its 95% interval."}}))
	golden := filepath.Join("testdata", "compare.md")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), buf.String())

	sc := cmp.Settings[0]
	assert.Equal(t, 1, sc.NewViolating)
	assert.Equal(t, "go run ./cmd/simulate -profile claude-code -set auto_compact_buffer=20000 -replay 0x3f9", sc.NewViolations[0].Replay)
	var js bytes.Buffer
	require.NoError(t, cmp.WriteJSON(&js, nil))
	assert.Contains(t, js.String(), `"verdict": "worse"`)
	assert.Contains(t, js.String(), `"regressions": []`)
}

func TestCompareRefusesDifferentSettings(t *testing.T) {
	s := setting(t, "claude-code")
	other, err := s.With("workload.faults.overloaded", "0.2")
	require.NoError(t, err)
	b := recordOf("base.parquet", s, 1, synthetic(1, 20, 0, 1, -1), true)
	c := recordOf("cand.parquet", other, 1, synthetic(1, 20, 0, 1, -1), true)
	_, err = Compare(b, c, Options{})
	require.ErrorIs(t, err, ErrIncomparable)
	assert.Contains(t, err.Error(), "base.parquet")
	assert.Contains(t, err.Error(), "workload.faults.overloaded: 0.003 -> 0.2")
	forced, err := Compare(b, c, Options{Force: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"workload.faults.overloaded: 0.003 -> 0.2"}, forced.Settings[0].Differences)

	two := recordOf("two.parquet", s, 1, synthetic(1, 20, 0, 1, -1), true)
	two.Header.Settings = append(two.Header.Settings, s)
	two.Header.Episodes = 10
	_, err = Compare(b, two, Options{})
	require.ErrorIs(t, err, ErrIncomparable)
	assert.Contains(t, err.Error(), "1 settings (claude-code) against 2")
}

func TestCompareUnpaired(t *testing.T) {
	s := setting(t, "seed")
	b := recordOf("b", s, 1, synthetic(1, 200, 0.02, 1, -1), true)
	c := recordOf("c", s, 2, synthetic(2, 150, 0.02, 1, -1), true)
	for i := range c.Rows {
		c.Rows[i].Seed += 1_000_000 // other episodes
	}
	cmp, err := Compare(b, c, Options{})
	require.NoError(t, err)
	sc := cmp.Settings[0]
	assert.False(t, sc.Paired)
	for _, r := range sc.Rows {
		if r.Kind == KindMean {
			assert.Equal(t, "mann-whitney", r.Test, r.Metric)
		} else {
			assert.Equal(t, "z", r.Test, r.Metric)
		}
	}
	var md bytes.Buffer
	require.NoError(t, cmp.WriteMarkdown(&md, nil))
	assert.Contains(t, md.String(), "Unpaired: the records played different episodes, 200 against 150")
}

func TestParseRules(t *testing.T) {
	rules, err := ParseRules("failure_rate>+0.5pp, cost>+2%,tokens>+5000,completed<-1pp,new_violations>0")
	require.NoError(t, err)
	require.Len(t, rules, 5)
	assert.Equal(t, Rule{Text: "failure_rate>+0.5pp", Metric: "failure_rate", Greater: true, Threshold: 0.005, Unit: "pp"}, rules[0])
	assert.Equal(t, Rule{Text: "cost>+2%", Metric: "cost_usd", Greater: true, Threshold: 0.02, Unit: "%"}, rules[1])
	assert.Equal(t, Rule{Text: "tokens>+5000", Metric: "tokens", Greater: true, Threshold: 5000}, rules[2])
	assert.Equal(t, Rule{Text: "completed<-1pp", Metric: "completed", Threshold: -0.01, Unit: "pp"}, rules[3])

	for spec, want := range map[string]string{
		"":                   "no rule",
		"bogus>1%":           `unknown metric "bogus"`,
		"failure_rate>0.5":   "is a rate",
		"tokens>+1pp":        "pp is for rates",
		"cost>lots":          `"lots" is not a number`,
		"cost=2%":            "want metric>threshold",
		"new_violations>1pp": "takes a count",
	} {
		_, err := ParseRules(spec)
		assert.ErrorContains(t, err, want, spec)
	}
}

func TestRegressionsNeedSignificance(t *testing.T) {
	b, c := goldenPair(t)
	cmp, err := Compare(b, c, Options{})
	require.NoError(t, err)
	rules, err := ParseRules("tokens>+5%,requests>+1%,new_violations>0,completed<-1pp")
	require.NoError(t, err)
	var got []string
	for _, r := range cmp.Regressions(rules) {
		got = append(got, r.Rule)
	}
	// tokens +8% and completed -4pp are significant; requests did not
	// change significantly.
	assert.Equal(t, []string{"tokens>+5%", "new_violations>0", "completed<-1pp"}, got)
	observed := cmp.Regressions(rules)[0].Observed
	assert.True(t, strings.HasPrefix(observed, "tokens (input + output) (mean) +"), "the first regression observed: %q", observed)
}

// TestPlot: every plot of a comparison is written, PNG and SVG, and
// listed; unpaired records have no paired-difference plot.
func TestPlot(t *testing.T) {
	b, c := goldenPair(t)
	cmp, err := Compare(b, c, Options{})
	require.NoError(t, err)
	dir := t.TempDir()
	figs, err := cmp.Plot(dir)
	require.NoError(t, err)
	var files []string
	for _, f := range figs {
		files = append(files, f.File)
		for _, ext := range []string{".png", ".svg"} {
			st, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(f.File, ".png")+ext))
			if assert.NoError(t, err) {
				assert.Positive(t, st.Size())
			}
		}
	}
	assert.Equal(t, []string{"forest.png", "terminals.png", "ecdf.png", "paired-diff.png"}, files)

	for i := range c.Rows {
		c.Rows[i].Seed += 1_000_000
	}
	unpaired, err := Compare(b, c, Options{})
	require.NoError(t, err)
	figs, err = unpaired.Plot(t.TempDir())
	require.NoError(t, err)
	assert.Len(t, figs, 3)
}

// TestRankAndMeanDisagree: nearly every episode costs a little more
// while one costs far less; the signed-rank test calls the typical
// episode worse, the mean's interval holds zero, and the row says so.
func TestRankAndMeanDisagree(t *testing.T) {
	s := setting(t, "claude-code")
	base := synthetic(3, 200, 0, 1, -1)
	cand := append([]Row(nil), base...)
	for i := range cand {
		cand[i].Tokens += 10
	}
	cand[0].Tokens -= 100_000
	cand[0].Tokens = max(cand[0].Tokens, 0)
	c, err := Compare(recordOf("b", s, 1, base, false), recordOf("c", s, 1, cand, false), Options{})
	require.NoError(t, err)
	for _, r := range c.Settings[0].Rows {
		if r.Metric == "tokens" {
			assert.Equal(t, Worse, r.Verdict)
			assert.True(t, r.DeltaCI.Contains(0), "%+v", r.DeltaCI)
			assert.True(t, r.Disagree)
			return
		}
	}
	require.FailNow(t, "no tokens row")
}
