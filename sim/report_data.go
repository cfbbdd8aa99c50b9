package sim

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/loopsim/loopsim/loop"
)

// MetricSummary is one metric over a setting's episodes.
type MetricSummary struct {
	Mean float64 `json:"mean"`
	// Variance is the sample variance (n-1 denominator) and MeanCI the
	// mean's 95% t interval.
	Variance float64  `json:"variance"`
	MeanCI   Interval `json:"mean_ci"`
	P50      int64    `json:"p50"`
	P90      int64    `json:"p90"`
	P99      int64    `json:"p99"`
	Max      int64    `json:"max"`
	Sum      int64    `json:"sum"`
}

// SettingSummary is one setting's results in plain data.
type SettingSummary struct {
	Name        string   `json:"name"`
	Label       string   `json:"label"`
	Profile     string   `json:"profile"`
	Params      []Param  `json:"params,omitempty"`
	Episodes    int      `json:"episodes"`
	Halted      int      `json:"halted"`
	Failures    int      `json:"failures"`
	FailureRate float64  `json:"failure_rate"`
	FailureCI   Interval `json:"failure_rate_ci"`
	// ParetoFront marks a setting on the front of the Pareto axes.
	ParetoFront bool `json:"pareto_front"`
	// ParetoUncertain marks a setting off the front that no setting
	// beating it beats significantly (see [Result.ParetoUncertain]).
	ParetoUncertain bool                     `json:"pareto_uncertain"`
	Terminals       map[string]int           `json:"terminals"`
	Metrics         map[string]MetricSummary `json:"metrics"`
	Violations      map[string]int           `json:"violations,omitempty"`
	// Explained counts the violations a known finding explains, by
	// finding.
	Explained map[string]int `json:"explained_by_findings,omitempty"`
	Examples  []Episode      `json:"violating_episodes,omitempty"`
}

// Summaries are the result's settings in plain data.
func (r *Result) Summaries() []SettingSummary {
	labels := r.Labels()
	front, uncertain := r.ParetoFront(), r.ParetoUncertain()
	out := make([]SettingSummary, len(r.Settings))
	for i, s := range r.Settings {
		a := s.Aggregate
		ss := SettingSummary{Name: s.Setting.Name, Label: labels[i], Profile: s.Setting.Profile(), Params: s.Setting.Params,
			Episodes: a.Episodes, Halted: a.Halted, Failures: a.Failures(), FailureRate: a.FailureRate(), FailureCI: a.FailureInterval(), ParetoFront: front[i], ParetoUncertain: uncertain[i],
			Terminals: map[string]int{}, Metrics: map[string]MetricSummary{}, Examples: a.Examples}
		for _, t := range loop.Terminals {
			ss.Terminals[string(t)] = a.Terminals[t]
		}
		for _, m := range Metrics() {
			ss.Metrics[m.Name()] = MetricSummary{Mean: a.Mean(m), Variance: a.Variance(m), MeanCI: a.MeanInterval(m), P50: a.Quantile(m, 0.5), P90: a.Quantile(m, 0.9),
				P99: a.Quantile(m, 0.99), Max: a.Max[m], Sum: a.Sum[m]}
		}
		if len(a.Violations) > 0 {
			ss.Violations = a.Violations
		}
		if len(a.Explained) > 0 {
			ss.Explained = a.Explained
		}
		out[i] = ss
	}
	return out
}

// WriteJSON writes the result (and the calibration, if any) as one JSON
// document.
func (rep *Report) WriteJSON(w io.Writer) error {
	r := rep.Result
	doc := struct {
		Command     string           `json:"command"`
		Seed        uint64           `json:"seed"`
		Episodes    int              `json:"episodes"`
		Prices      Prices           `json:"prices"`
		Checked     bool             `json:"invariants_checked"`
		ParetoAxes  []string         `json:"pareto_axes"`
		Settings    []SettingSummary `json:"settings"`
		Calibration []CalibrationRow `json:"calibration,omitempty"`
		Partial     bool             `json:"partial,omitempty"`
	}{rep.Command, r.Seed, r.Episodes, r.Prices, r.Checked, []string{r.ParetoAxes().X.Name(), r.ParetoAxes().Y.Name()},
		r.Summaries(), rep.Calibration, r.Partial}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("metrics json: %w", err)
	}
	return nil
}

// WriteCSV writes one row per setting: its name and overrides, its
// outcome counts, the failure rate with its 95% interval, every
// terminal's count, and each metric's mean with its 95% interval, its
// variance, p50, p90, p99 and max.
func (rep *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"setting", "profile", "params", "episodes", "halted", "failures", "failure_rate", "failure_rate_ci_lo", "failure_rate_ci_hi",
		"pareto_front", "pareto_uncertain"}
	for _, t := range loop.Terminals {
		head = append(head, "terminal_"+string(t))
	}
	for _, m := range Metrics() {
		for _, s := range []string{"mean", "mean_ci_lo", "mean_ci_hi", "variance", "p50", "p90", "p99", "max"} {
			head = append(head, m.Name()+"_"+s)
		}
	}
	cw.Write(head)
	for _, s := range rep.Result.Summaries() {
		params := ""
		for i, p := range s.Params {
			if i > 0 {
				params += " "
			}
			params += p.String()
		}
		row := []string{s.Name, s.Profile, params, strconv.Itoa(s.Episodes), strconv.Itoa(s.Halted), strconv.Itoa(s.Failures),
			strconv.FormatFloat(s.FailureRate, 'g', -1, 64), strconv.FormatFloat(s.FailureCI.Lo, 'g', -1, 64),
			strconv.FormatFloat(s.FailureCI.Hi, 'g', -1, 64), strconv.FormatBool(s.ParetoFront), strconv.FormatBool(s.ParetoUncertain)}
		for _, t := range loop.Terminals {
			row = append(row, strconv.Itoa(s.Terminals[string(t)]))
		}
		for _, m := range Metrics() {
			x := s.Metrics[m.Name()]
			row = append(row, strconv.FormatFloat(x.Mean, 'g', -1, 64), strconv.FormatFloat(x.MeanCI.Lo, 'g', -1, 64),
				strconv.FormatFloat(x.MeanCI.Hi, 'g', -1, 64), strconv.FormatFloat(x.Variance, 'g', -1, 64), strconv.FormatInt(x.P50, 10),
				strconv.FormatInt(x.P90, 10), strconv.FormatInt(x.P99, 10), strconv.FormatInt(x.Max, 10))
		}
		cw.Write(row)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("metrics csv: %w", err)
	}
	return nil
}
