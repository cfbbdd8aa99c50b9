package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
)

// Rule is one clause of -fail-on: a change of a metric beyond a
// threshold that counts as a regression when it is significant.
type Rule struct {
	// Text is the clause as written.
	Text string `json:"rule"`
	// Metric is the metric's name (aliases resolved).
	Metric string `json:"metric"`
	// Greater is set for ">", clear for "<".
	Greater bool `json:"greater"`
	// Threshold is the limit: a fraction for "pp" (0.005 for 0.5pp) and
	// "%" (0.02 for 2%), else in the metric's unit (dollars for cost).
	Threshold float64 `json:"threshold"`
	// Unit is "pp" (a rate's absolute change), "%" (the change relative
	// to the base value) or "" (absolute, in the metric's unit).
	Unit string `json:"unit"`
}

// NewViolationsMetric is the pseudo-metric of a rule on the number of
// candidate episodes with a new invariant violation
// ("new_violations>0"); it needs no significance.
const NewViolationsMetric = "new_violations"

// aliases are the short names a rule may use.
var aliases = map[string]string{"cost": sim.CostMicroUSD.Name(), "failures": "failure_rate", "failure": "failure_rate"}

// ParseRules reads a comma-separated list of rules, each metric, > or <,
// and a signed threshold with its unit: "failure_rate>+0.5pp",
// "cost>+2%", "tokens>+5000", "completed<-1pp", "new_violations>0".
func ParseRules(spec string) ([]Rule, error) {
	var out []Rule
	for _, clause := range strings.Split(spec, ",") {
		clause = strings.TrimSpace(clause)
		if clause == "" {
			continue
		}
		r, err := parseRule(clause)
		if err != nil {
			return nil, fmt.Errorf("-fail-on %q: %w", clause, err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-fail-on %q: no rule (want e.g. failure_rate>+0.5pp,cost>+2%%)", spec)
	}
	return out, nil
}

func parseRule(clause string) (Rule, error) {
	i := strings.IndexAny(clause, "<>")
	if i <= 0 {
		return Rule{}, fmt.Errorf("want metric>threshold or metric<threshold")
	}
	r := Rule{Text: clause, Metric: strings.TrimSpace(clause[:i]), Greater: clause[i] == '>'}
	if a, ok := aliases[r.Metric]; ok {
		r.Metric = a
	}
	value := strings.TrimSpace(clause[i+1:])
	switch {
	case strings.HasSuffix(value, "pp"):
		r.Unit, value = "pp", strings.TrimSuffix(value, "pp")
	case strings.HasSuffix(value, "%"):
		r.Unit, value = "%", strings.TrimSuffix(value, "%")
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil {
		return Rule{}, fmt.Errorf("threshold %q is not a number", value)
	}
	r.Threshold = x
	if r.Unit != "" {
		r.Threshold = x / 100
	}
	rate := isRateName(r.Metric)
	switch {
	case r.Metric == NewViolationsMetric:
		if r.Unit != "" || !r.Greater {
			return Rule{}, fmt.Errorf("new_violations takes a count: new_violations>N")
		}
	case !rate && !isMetricName(r.Metric):
		return Rule{}, fmt.Errorf("unknown metric %q (known: %s)", r.Metric, strings.Join(ruleMetrics(), ", "))
	case rate && r.Unit == "":
		return Rule{}, fmt.Errorf("%s is a rate: give the threshold in pp (percentage points) or %% (relative)", r.Metric)
	case !rate && r.Unit == "pp":
		return Rule{}, fmt.Errorf("%s is a per-episode mean: pp is for rates; give %% (relative) or an absolute value", r.Metric)
	}
	return r, nil
}

func isRateName(name string) bool {
	if name == "failure_rate" || name == EndHalted || name == EndCompletedAfterAPIError {
		return true
	}
	return slices.Contains(loop.Terminals, loop.Terminal(name))
}

func isMetricName(name string) bool {
	for _, m := range sim.Metrics() {
		if m.Name() == name {
			return true
		}
	}
	return false
}

// ruleMetrics lists the names a rule accepts.
func ruleMetrics() []string {
	out := []string{"failure_rate", NewViolationsMetric}
	for _, t := range loop.Terminals {
		out = append(out, string(t))
	}
	out = append(out, EndHalted, EndCompletedAfterAPIError, "cost")
	for _, m := range sim.Metrics() {
		out = append(out, m.Name())
	}
	return out
}

// Regression is a rule a setting of a comparison broke.
type Regression struct {
	Rule    string `json:"rule"`
	Setting string `json:"setting"`
	// Observed is the change that broke it, as the report writes it.
	Observed string `json:"observed"`
}

// String is the regression for a person.
func (r Regression) String() string { return fmt.Sprintf("%s: %s (%s)", r.Setting, r.Rule, r.Observed) }

// Regressions checks the rules against every setting of c: a rule is
// broken when the metric's change is significant (Holm-corrected p below
// c.Alpha) and its estimate is beyond the threshold, in the rule's
// direction. A metric absent from a setting (zero in both records)
// breaks nothing.
func (c *Comparison) Regressions(rules []Rule) []Regression {
	var out []Regression
	for _, sc := range c.Settings {
		for _, rule := range rules {
			if rule.Metric == NewViolationsMetric {
				if float64(sc.NewViolating) > rule.Threshold {
					out = append(out, Regression{Rule: rule.Text, Setting: sc.Label, Observed: fmt.Sprintf("%d new violating episodes", sc.NewViolating)})
				}
				continue
			}
			for i := range sc.Rows {
				r := &sc.Rows[i]
				if r.Metric != rule.Metric || !r.Significant(c.Alpha) {
					continue
				}
				change := r.Delta
				if rule.Unit == "%" {
					if r.Base == 0 {
						continue
					}
					change, _ = r.Relative()
				}
				if rule.Greater && change > rule.Threshold || !rule.Greater && change < rule.Threshold {
					out = append(out, Regression{Rule: rule.Text, Setting: sc.Label,
						Observed: fmt.Sprintf("%s %s, p = %s", rowName(r), FormatDelta(r, r.Delta), formatP(r.PHolm))})
				}
			}
		}
	}
	return out
}
