package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
)

// Alpha is the significance level of a comparison's verdicts, after
// Holm's correction.
const Alpha = 0.05

// Options tune a comparison.
type Options struct {
	// Force compares settings whose model, workload, prices or limits
	// differ (the report lists the differences); without it such a
	// comparison is an [ErrIncomparable] error.
	Force bool
}

// ErrIncomparable is the error (wrapped) of two records that do not
// measure the same thing: a different number of settings, or settings
// that differ in more than the policy.
var ErrIncomparable = errors.New("records not comparable")

// Side describes one record of a comparison.
type Side struct {
	File     string `json:"file"`
	Build    Build  `json:"build"`
	Command  string `json:"command"`
	Seed     uint64 `json:"seed"`
	Episodes int    `json:"episodes"`
	Checked  bool   `json:"invariants_checked"`
}

// Comparison is a candidate record set against a base record.
type Comparison struct {
	Base      Side `json:"base"`
	Candidate Side `json:"candidate"`
	// Alpha is the significance level (after Holm's correction).
	Alpha float64 `json:"alpha"`
	// Settings compare the records' settings pairwise, in order.
	Settings []SettingComparison `json:"settings"`
	// Behaviour lists the scenarios that behave differently in the
	// candidate; BehaviourNote says why it is empty when it could not be
	// compared.
	Behaviour     []ScenarioChange `json:"behaviour"`
	BehaviourNote string           `json:"behaviour_note,omitempty"`
}

// SettingComparison compares one setting of each record.
type SettingComparison struct {
	// Label names the pair for a person.
	Label string `json:"label"`
	// Base and Candidate are the settings.
	Base      sim.Setting `json:"-"`
	Candidate sim.Setting `json:"-"`
	// Changes lists the policy values that differ, "field: base ->
	// candidate"; Differences what else differs (only with Force).
	Changes     []string `json:"changes"`
	Differences []string `json:"differences,omitempty"`
	// Paired is set when both played the same episodes (the same seeds):
	// the tests pair them by seed.
	Paired bool `json:"paired"`
	// N1 and N2 are the episodes of each.
	N1 int `json:"n_base"`
	N2 int `json:"n_candidate"`
	// Rows are the metrics compared: rates first, then means.
	Rows []MetricRow `json:"metrics"`
	// NewViolations are candidate episodes that broke an invariant the
	// base did not (on the same seed when paired, anywhere otherwise);
	// NewViolating counts them all, NewViolations holds the first ten.
	NewViolating  int            `json:"new_violating_episodes"`
	NewViolations []NewViolation `json:"new_violations,omitempty"`

	// the per-episode values kept for the plots
	base, cand []Row
}

// NewViolation is a candidate episode with an invariant violation new
// in the candidate.
type NewViolation struct {
	Episode    int64  `json:"episode"`
	Seed       uint64 `json:"seed"`
	End        string `json:"end"`
	Invariants string `json:"invariants"`
	// Replay is the command that replays it, at the candidate's revision.
	Replay string `json:"replay"`
}

// The kinds of metric row.
const (
	KindRate = "rate" // a share of episodes
	KindMean = "mean" // a per-episode mean
)

// Verdict is what a comparison says of one metric: [Better], [Worse],
// [Changed] or [Same].
type Verdict string

// The verdicts of a metric row.
const (
	// Better: significant, in the metric's better direction.
	Better Verdict = "better"
	// Worse: significant, against the metric's better direction.
	Worse Verdict = "worse"
	// Changed: significant, on a metric that is neither better up nor
	// down.
	Changed Verdict = "changed"
	// Same: not significant.
	Same Verdict = "~"
)

// MetricRow compares one metric.
type MetricRow struct {
	// Metric names it: failure_rate, an end (a terminal, halted,
	// completed_after_api_error) for its share, or a [sim.Metric] name
	// for its mean.
	Metric string `json:"metric"`
	Kind   string `json:"kind"`
	// Unit is the metric's unit ("tokens", "ms", "usd", "" for a count;
	// "share" for a rate).
	Unit string `json:"unit"`
	// Base and Candidate are the values (a fraction for a rate; usd in
	// dollars), each with its 95% interval (Wilson; t).
	Base        float64      `json:"base"`
	BaseCI      sim.Interval `json:"base_ci"`
	Candidate   float64      `json:"candidate"`
	CandidateCI sim.Interval `json:"candidate_ci"`
	// Delta is candidate minus base, with its 95% interval (Newcombe for
	// rates, paired or not; paired t or Welch for means).
	Delta   float64      `json:"delta"`
	DeltaCI sim.Interval `json:"delta_ci"`
	// Test names the test of P: wilcoxon, mann-whitney, mcnemar, z.
	Test string `json:"test"`
	// P is the test's two-sided p-value and PHolm it after Holm's
	// correction across the setting's rows.
	P     float64 `json:"p"`
	PHolm float64 `json:"p_holm"`
	// Effect is the effect size: the rank-biserial correlation for means
	// (positive: the candidate tends higher), Cohen's h for rates.
	Effect float64 `json:"effect"`
	// Direction is -1 when lower is better, +1 when higher is, 0 when
	// neither.
	Direction int `json:"direction"`
	// Verdict is better, worse, changed or ~.
	Verdict Verdict `json:"verdict"`
	// Disagree is set on a mean whose rank test is significant while the
	// interval of the difference of means holds zero: the typical episode
	// moved, but a few large ones dominate the mean.
	Disagree bool `json:"rank_and_mean_disagree,omitempty"`
}

// Relative is the delta as a fraction of the base value, and its
// interval (relative to the base value alone); zero when the base is.
func (r *MetricRow) Relative() (float64, sim.Interval) {
	if r.Base == 0 {
		return 0, sim.Interval{}
	}
	b := math.Abs(r.Base)
	return r.Delta / b, sim.Interval{Lo: r.DeltaCI.Lo / b, Hi: r.DeltaCI.Hi / b}
}

// Significant reports whether the row's difference is significant.
func (r *MetricRow) Significant(alpha float64) bool { return r.PHolm < alpha }

// lowerIsBetter and higherIsBetter give a verdict its direction; other
// metrics are "changed" when significant. Recoveries of either kind
// (recoveries, stream_cuts_kept) are neither: more of them is a run that
// met more faults or one that survived them.
var (
	lowerIsBetter = map[string]bool{
		"failure_rate": true, EndHalted: true, EndCompletedAfterAPIError: true,
		sim.Tokens.Name(): true, sim.CostMicroUSD.Name(): true, sim.WastedTokens.Name(): true, sim.Requests.Name(): true,
		sim.Retries.Name(): true, sim.RetryTimeMS.Name(): true, sim.CompactionFailures.Name(): true, sim.Fallbacks.Name(): true,
	}
	higherIsBetter = map[string]bool{string(loop.Completed): true}
)

func direction(metric string) int {
	switch {
	case lowerIsBetter[metric] || sim.IsFailure(loop.Terminal(metric)):
		return -1
	case higherIsBetter[metric]:
		return 1
	}
	return 0
}

// Compare sets cand against base, setting by setting.
func Compare(base, cand *Record, opt Options) (*Comparison, error) {
	nb, nc := len(base.Header.Settings), len(cand.Header.Settings)
	if nb != nc {
		return nil, fmt.Errorf("compare %s and %s: %w: %d settings (%s) against %d (%s); record the same settings (-profile, -sweep) in both",
			base.File, cand.File, ErrIncomparable, nb, settingNames(base), nc, settingNames(cand))
	}
	c := &Comparison{Base: sideOf(base), Candidate: sideOf(cand), Alpha: Alpha}
	for i := range nb {
		sc, err := compareSetting(base, cand, i, opt)
		if err != nil {
			return nil, fmt.Errorf("compare %s and %s: %w", base.File, cand.File, err)
		}
		c.Settings = append(c.Settings, *sc)
	}
	switch {
	case base.Behaviour == nil || cand.Behaviour == nil:
		c.BehaviourNote = "Not compared: a record holds no scenario behaviour."
	default:
		c.Behaviour = CompareBehaviour(base.Behaviour, cand.Behaviour)
	}
	return c, nil
}

func settingNames(r *Record) string {
	names := make([]string, len(r.Header.Settings))
	for i, s := range r.Header.Settings {
		names[i] = s.Name
	}
	return strings.Join(names, "; ")
}

func sideOf(r *Record) Side {
	h := &r.Header
	return Side{File: r.File, Build: h.Build, Command: h.Command, Seed: h.Seed, Episodes: h.Episodes, Checked: h.Checked}
}

// compareSetting compares setting i of each record.
func compareSetting(base, cand *Record, i int, opt Options) (*SettingComparison, error) {
	bs, cs := base.Header.Settings[i], cand.Header.Settings[i]
	changes := diffJSON("", bs.Policy, cs.Policy)
	var others []string
	others = append(others, diffJSON("model.", bs.Model, cs.Model)...)
	others = append(others, diffJSON("fallback_model.", bs.FallbackModel, cs.FallbackModel)...)
	others = append(others, diffJSON("workload.", bs.Workload, cs.Workload)...)
	if bs.IterationLimit != cs.IterationLimit {
		others = append(others, fmt.Sprintf("iteration_limit: %d -> %d", bs.IterationLimit, cs.IterationLimit))
	}
	if i == 0 {
		others = append(others, diffJSON("prices.", base.Header.Prices, cand.Header.Prices)...)
		if base.Header.Checked != cand.Header.Checked {
			others = append(others, fmt.Sprintf("invariants checked: %t -> %t", base.Header.Checked, cand.Header.Checked))
		}
	}
	if len(others) > 0 && !opt.Force {
		return nil, fmt.Errorf("setting %d (%s against %s): %w: they differ in more than the policy: %s (-force compares them anyway)",
			i, bs.Name, cs.Name, ErrIncomparable, strings.Join(others, "; "))
	}
	sc := &SettingComparison{Base: bs, Candidate: cs, Changes: changes, Differences: others,
		base: base.Setting(i), cand: cand.Setting(i)}
	sc.N1, sc.N2 = len(sc.base), len(sc.cand)
	sc.Label = pairLabel(bs, cs)
	sc.Paired = sc.N1 == sc.N2
	for j := range sc.base {
		if !sc.Paired || sc.base[j].Seed != sc.cand[j].Seed {
			sc.Paired = false
			break
		}
	}
	sc.rates()
	sc.means()
	ps := make([]float64, len(sc.Rows))
	for j, r := range sc.Rows {
		ps[j] = r.P
	}
	for j, p := range Holm(ps) {
		r := &sc.Rows[j]
		r.PHolm = p
		r.Verdict = verdict(r)
		r.Disagree = r.Kind == KindMean && r.Significant(Alpha) && r.DeltaCI.Contains(0)
	}
	sc.newViolations(cand.Header.Build)
	return sc, nil
}

// pairLabel names a pair of settings: the profile and the overrides
// they share, then what sets each apart.
func pairLabel(b, c sim.Setting) string {
	if b.Name == c.Name {
		return b.Name
	}
	common := []string{b.Profile()}
	if c.Profile() != b.Profile() {
		common = []string{b.Profile() + " -> " + c.Profile()}
	}
	var onlyB, onlyC []string
	for _, p := range b.Params {
		if slices.Contains(c.Params, p) {
			common = append(common, p.String())
		} else {
			onlyB = append(onlyB, p.String())
		}
	}
	for _, p := range c.Params {
		if !slices.Contains(b.Params, p) {
			onlyC = append(onlyC, p.String())
		}
	}
	label := strings.Join(common, " ")
	if len(onlyB)+len(onlyC) > 0 {
		label += ": " + orNone(strings.Join(onlyB, " ")) + " -> " + orNone(strings.Join(onlyC, " "))
	}
	return label
}

func verdict(r *MetricRow) Verdict {
	if !r.Significant(Alpha) {
		return Same
	}
	sign := r.Delta
	if r.Kind == KindMean {
		sign = r.Effect // the rank test's direction
	}
	switch {
	case r.Direction == 0 || sign == 0:
		return Changed
	case (sign > 0) == (r.Direction > 0):
		return Better
	}
	return Worse
}

// rates adds the failure rate and each end's share.
func (sc *SettingComparison) rates() {
	sc.Rows = append(sc.Rows, sc.rate("failure_rate", func(r *Row) bool { return r.Failed }))
	seen := map[string]bool{}
	for _, rows := range [][]Row{sc.base, sc.cand} {
		for j := range rows {
			seen[rows[j].End()] = true
		}
	}
	var ends []string
	for _, t := range loop.Terminals {
		ends = append(ends, string(t))
	}
	ends = append(ends, EndCompletedAfterAPIError, EndHalted)
	for e := range seen {
		if !slices.Contains(ends, e) {
			ends = append(ends, e) // a terminal this loopsim does not know
		}
	}
	for _, e := range ends {
		if seen[e] {
			sc.Rows = append(sc.Rows, sc.rate(e, func(r *Row) bool { return r.End() == e }))
		}
	}
}

func (sc *SettingComparison) rate(name string, is func(*Row) bool) MetricRow {
	count := func(rows []Row) int {
		n := 0
		for j := range rows {
			if is(&rows[j]) {
				n++
			}
		}
		return n
	}
	k1, k2 := count(sc.base), count(sc.cand)
	p1, p2 := ratio(k1, sc.N1), ratio(k2, sc.N2)
	row := MetricRow{Metric: name, Kind: KindRate, Unit: "share", Base: p1, Candidate: p2, Delta: p2 - p1,
		BaseCI: sim.Wilson(k1, sc.N1, sim.Confidence), CandidateCI: sim.Wilson(k2, sc.N2, sim.Confidence),
		Effect: 2*math.Asin(math.Sqrt(p2)) - 2*math.Asin(math.Sqrt(p1)), Direction: direction(name)}
	if sc.Paired {
		var both, baseOnly, candOnly int
		for j := range sc.base {
			b, c := is(&sc.base[j]), is(&sc.cand[j])
			switch {
			case b && c:
				both++
			case b:
				baseOnly++
			case c:
				candOnly++
			}
		}
		row.Test, row.P = "mcnemar", sim.McNemarExact(baseOnly, candOnly)
		row.DeltaCI = NewcombePaired(both, baseOnly, candOnly, sc.N1, sim.Confidence)
	} else {
		row.Test, row.P = "z", sim.TwoProportionP(k1, sc.N1, k2, sc.N2)
		row.DeltaCI = sim.NewcombeDiff(k1, sc.N1, k2, sc.N2, sim.Confidence)
	}
	return row
}

// means adds each metric's mean, for the metrics not zero in both.
func (sc *SettingComparison) means() {
	for _, m := range sim.Metrics() {
		x1, x2 := values(sc.base, m), values(sc.cand, m)
		if allZero(x1) && allZero(x2) {
			continue
		}
		scale := 1.0
		if m == sim.CostMicroUSD {
			scale = 1e-6
		}
		m1, v1 := MeanVariance(x1)
		m2, v2 := MeanVariance(x2)
		row := MetricRow{Metric: m.Name(), Kind: KindMean, Unit: m.Unit(), Base: m1 * scale, Candidate: m2 * scale,
			Delta: (m2 - m1) * scale, Direction: direction(m.Name()),
			BaseCI:      scaled(sim.MeanInterval(m1, v1, len(x1), sim.Confidence), scale),
			CandidateCI: scaled(sim.MeanInterval(m2, v2, len(x2), sim.Confidence), scale)}
		var rt RankTest
		if sc.Paired {
			d := make([]float64, len(x1))
			for j := range d {
				d[j] = x2[j] - x1[j]
			}
			_, ci := PairedMeanInterval(d, sim.Confidence)
			row.DeltaCI = scaled(ci, scale)
			row.Test, rt = "wilcoxon", WilcoxonSignedRank(d)
		} else {
			row.DeltaCI = scaled(sim.WelchInterval(m1, v1, len(x1), m2, v2, len(x2), sim.Confidence), scale)
			row.Test, rt = "mann-whitney", MannWhitney(x1, x2)
		}
		row.P, row.Effect = rt.P, rt.Effect
		sc.Rows = append(sc.Rows, row)
	}
}

func values(rows []Row, m sim.Metric) []float64 {
	out := make([]float64, len(rows))
	for j := range rows {
		out[j] = float64(rows[j].Value(m))
	}
	return out
}

func allZero(x []float64) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

func scaled(i sim.Interval, s float64) sim.Interval { return sim.Interval{Lo: i.Lo * s, Hi: i.Hi * s} }

// maxNewViolations caps the new violations a comparison lists.
const maxNewViolations = 10

// newViolations finds the candidate episodes with an invariant the base
// did not break: on the same seed when paired, anywhere otherwise.
func (sc *SettingComparison) newViolations(b Build) {
	baseAny := map[string]bool{}
	for j := range sc.base {
		for _, inv := range splitInvariants(sc.base[j].Invariants) {
			baseAny[inv] = true
		}
	}
	for j := range sc.cand {
		r := &sc.cand[j]
		if r.Violations == 0 {
			continue
		}
		var fresh []string
		for _, inv := range splitInvariants(r.Invariants) {
			if sc.Paired && !slices.Contains(splitInvariants(sc.base[j].Invariants), inv) || !sc.Paired && !baseAny[inv] {
				fresh = append(fresh, inv)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		sc.NewViolating++
		if len(sc.NewViolations) < maxNewViolations {
			sc.NewViolations = append(sc.NewViolations, NewViolation{Episode: r.Episode, Seed: r.Seed, End: r.End(),
				Invariants: strings.Join(fresh, ","),
				Replay:     fmt.Sprintf("go run ./cmd/simulate %s -replay %#x", sc.Candidate.ReplayFlags(), r.Seed)})
		}
	}
}

func splitInvariants(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// diffJSON lists the leaves of a and b (seen as JSON) that differ, as
// "prefix.path: a -> b", in path order.
func diffJSON(prefix string, a, b any) []string {
	fa, fb := map[string]string{}, map[string]string{}
	flatten(prefix, toJSON(a), fa)
	flatten(prefix, toJSON(b), fb)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		if fa[k] != fb[k] {
			out = append(out, fmt.Sprintf("%s: %s -> %s", k, orNone(fa[k]), orNone(fb[k])))
		}
	}
	sort.Strings(out)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func toJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return string(b)
	}
	return out
}

func flatten(path string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(path+k+".", e, out)
		}
	default:
		b, _ := json.Marshal(x)
		out[strings.TrimSuffix(path, ".")] = string(b)
	}
}
