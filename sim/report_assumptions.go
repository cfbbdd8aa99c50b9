package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
)

// Assumption is a figure a simulation assumes rather than measures, with
// its value and why it is what it is.
type Assumption struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Basis string `json:"basis"`
}

// Assumptions lists what the simulation of r assumes: prices, fault
// rates, the cost of a compaction besides its own request, the workload
// and the model. A value that differs between settings is listed per
// setting.
func Assumptions(r *Result) []Assumption {
	value := func(get func(s Setting) string) string {
		first := get(r.Settings[0].Setting)
		var per []string
		same := true
		for _, sr := range r.Settings {
			v := get(sr.Setting)
			same = same && v == first
			per = append(per, sr.Setting.Name+": "+v)
		}
		if same {
			return first
		}
		return strings.Join(per, "; ")
	}
	rework := func(s Setting) string {
		rw := s.Workload.CompactionRework
		if rw.Min == 0 && !(rw.Mean > 0) {
			return "none (off)"
		}
		return fmt.Sprintf("%s more tool-calling replies per compaction on average (geometric, %d to %d)", strconv.FormatFloat(rw.Mean, 'g', 4, 64), rw.Min, rw.Max)
	}
	reworkBasis := "an assumption: " + ReworkEvidence() + "; the default, 3, is half the re-reads seen after a compaction. Switch it with -set workload.compaction_rework.mean=N (0: off)"
	if rw := r.Settings[0].Setting.Workload.CompactionRework; rw != fakemodel.DefaultCompactionRework {
		reworkBasis = "set for this run (the default, an assumption, is " + strconv.FormatFloat(fakemodel.DefaultCompactionRework.Mean, 'g', 4, 64) + "; see fakemodel.DefaultCompactionRework)"
	}
	faults := func(s Setting) string {
		f := s.Workload.Faults
		if s.Workload.Swarm {
			return "drawn per episode around: " + faultList(f)
		}
		return faultList(f)
	}
	workload := func(s Setting) string {
		if s.WorkloadFile != "" {
			return "fitted, from " + s.WorkloadFile
		}
		if _, ok := modelWorkload(s.Model.Name); ok {
			return "built in, with the starting context and output fitted for " + s.Model.Name
		}
		return "built in (fakemodel.DefaultWorkload)"
	}
	model := func(s Setting) string {
		return fmt.Sprintf("%s: window %d, output cap %d", s.Model.Name, s.Model.ContextWindow, s.Model.MaxOutputTokens)
	}
	return []Assumption{
		{"prices", "$ per million tokens: " + r.Prices.String(), "list prices of a Sonnet-class model unless -prices says otherwise; the cache is modelled as a prefix cache (what the previous request sent is read, the rest written)"},
		{"compaction rework", value(rework), reworkBasis},
		{"fault rates", value(faults), "assumed: the transcripts measure no fault rate (two connection-retry errors in 187 calls set the order of magnitude of the API faults); stop-hook behaviour likewise. -set workload.faults.NAME=P"},
		{"workload", value(workload), "calibrated on the transcripts (the calibration table below compares it with the targets kept in the repository); what a stop-hook block adds (workload.after_block) is assumed"},
		{"model", value(model), "loop.Catalog or sim.ModelWorkloads when the model is named (-set model=NAME), else the simulation's default"},
	}
}

// faultList writes the non-zero fault probabilities.
func faultList(f fakemodel.Faults) string {
	parts := []string{}
	for _, r := range f.Rates() {
		if r.P > 0 {
			parts = append(parts, r.Name+" "+strconv.FormatFloat(r.P, 'g', 3, 64))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// writeAssumptions writes the assumptions section.
func (rep *Report) writeAssumptions(md *markdown) {
	md.line("## Assumptions")
	md.line("")
	md.line("What these results assume rather than measure; each is switchable.")
	md.line("")
	as := Assumptions(rep.Result)
	md.table([]string{"assumption", "value", "basis"}, len(as), func(i int) []string {
		return []string{as[i].Name, as[i].Value, as[i].Basis}
	})
}

// ReworkEvidence says what the transcripts show of the work redone after
// a compaction (the rework observations of the targets kept in the
// repository).
func ReworkEvidence() string {
	tg, err := DefaultTargets()
	if err != nil || len(tg.Rework) == 0 {
		return "the transcripts hold no compaction to measure it on"
	}
	var excess []string
	lo, hi, sum := math.MaxInt, math.MinInt, 0
	for _, o := range tg.Rework {
		lo, hi = min(lo, o.After), max(hi, o.After)
		excess = append(excess, fmt.Sprintf("%+d", o.Excess()))
		sum += o.Excess()
	}
	return fmt.Sprintf("the transcripts' %d compactions do not measure it: the %d calls after one re-read %d to %d files read earlier, but the excess over the %d calls before is %s (mean %.1f)",
		len(tg.Rework), ReworkWindow, lo, hi, ReworkWindow, strings.Join(excess, ", "), float64(sum)/float64(len(tg.Rework)))
}
