package sim

import (
	"math"
	"path/filepath"

	"gonum.org/v1/gonum/stat"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/transcript"
)

// Source is the real sessions of one source: one person or project, as
// far as the logs tell (the folder holding them).
type Source struct {
	// Name names the source (the folder of its logs).
	Name string
	// Files are its session logs.
	Files []string
	// Figures are its figures, every session pooled.
	Figures Figures
}

// GroupSources groups sessions by source: the folder holding each log
// (~/.claude/projects/PROJECT, one published set of transcripts), in the
// order first seen. With model set, only that model's calls count, and
// a source with none of them is left out.
func GroupSources(sessions []*transcript.Session, model string) []Source {
	var out []Source
	index := map[string]int{}
	groups := [][]*transcript.Session{}
	for _, s := range sessions {
		dir := filepath.Dir(s.Name)
		i, ok := index[dir]
		if !ok {
			i = len(out)
			index[dir] = i
			out = append(out, Source{Name: filepath.Base(dir)})
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], s)
		out[i].Files = append(out[i].Files, s.Name)
	}
	kept := out[:0]
	for i, src := range out {
		if model == "" {
			for _, s := range groups[i] {
				src.Figures.AddSession(s)
			}
		} else {
			_, byModel := FiguresByModel(groups[i])
			f, ok := byModel[transcript.ModelName(model)]
			if !ok {
				continue
			}
			src.Figures = *f
		}
		if src.Figures.Tools.N() > 0 {
			kept = append(kept, src)
		}
	}
	return kept
}

// Spread is the estimate of one population parameter: where each source
// lies on the logarithmic scale the parameter scales, and the spread
// between sources beyond what their own sampling explains.
type Spread struct {
	// Parameter is the population field ("output").
	Parameter string `json:"parameter"`
	// Measure says what locates a source.
	Measure string `json:"measure"`
	// Locations are the locations (natural logarithms) of the sources
	// that have values, in the order of the sources.
	Locations []Location `json:"locations"`
	// Between is the variance of the locations; Sampling the mean
	// variance each location has from its own finite sample.
	Between  float64 `json:"between"`
	Sampling float64 `json:"sampling"`
	// Sigma is the spread fitted: the square root of what Between holds
	// beyond Sampling (0 when Sampling explains it all), rounded.
	Sigma float64 `json:"sigma"`
}

// Location is where one source lies on a parameter's log scale.
type Location struct {
	// Source names the source.
	Source string `json:"source"`
	// Log is the location; N the number of values it was measured on.
	Log float64 `json:"log"`
	N   int     `json:"n"`
}

// spreadMeasures are how each population parameter locates a source:
// loc returns the source's location, the variance of one of its values
// on the location's scale (NaN when it has fewer than two), and the
// number of values, so that the location's sampling variance is the
// one over the other; ok is false when the source has no value.
var spreadMeasures = []struct {
	param, measure string
	loc            func(f *Figures) (loc, variance, n float64, ok bool)
}{
	{"start_context", "mean log context of each session's first call", func(f *Figures) (float64, float64, float64, bool) {
		return meanLog(&f.StartContext)
	}},
	{"output", "mean log output per call", func(f *Figures) (float64, float64, float64, bool) { return meanLog(&f.Output) }},
	{"replies", "mean log calls per user prompt", func(f *Figures) (float64, float64, float64, bool) { return meanLog(&f.CallsPerPrompt) }},
	{"tools", "log of the mean tool calls beyond the first of tool-calling calls", toolsLocation},
	{"tool_result", "log of what a tool call adds: (mean growth per call - mean output per call) / mean tools per tool-calling call", toolResultLocation},
}

// meanLog locates a source by the mean natural logarithm of its
// positive values.
func meanLog(s *Sample) (loc, variance, n float64, ok bool) {
	var logs []float64
	for _, v := range s.Values {
		if v > 0 {
			logs = append(logs, math.Log(float64(v)))
		}
	}
	if len(logs) == 0 {
		return 0, 0, 0, false
	}
	mean, variance := stat.MeanVariance(logs, nil)
	if len(logs) < 2 {
		variance = math.NaN()
	}
	return mean, variance, float64(len(logs)), true
}

// toolsLocation locates a source by the log of the mean number of tool
// calls beyond the first in its tool-calling calls; its variance by the
// delta method (the log of a mean varies as the values' relative
// variance).
func toolsLocation(f *Figures) (loc, variance, n float64, ok bool) {
	var extra []float64
	for _, v := range f.Tools.Values {
		if v > 0 {
			extra = append(extra, float64(v-1))
		}
	}
	if len(extra) < 2 {
		return 0, 0, 0, false
	}
	mean, v := stat.MeanVariance(extra, nil)
	if mean <= 0 {
		return 0, 0, 0, false
	}
	return math.Log(mean), v / (mean * mean), float64(len(extra)), true
}

// toolResultLocation locates a source by the log of what one tool call
// adds to the context: the growth per call less the output that is part
// of it, over the tool calls of a tool-calling call. Its variance is the
// delta method's, from the growth's and the output's.
func toolResultLocation(f *Figures) (loc, variance, n float64, ok bool) {
	g, o := f.Growth.Sorted(), f.Output.Sorted()
	var tools []float64
	for _, v := range f.Tools.Values {
		if v > 0 {
			tools = append(tools, float64(v))
		}
	}
	if len(g) < 2 || len(o) < 2 || len(tools) < 2 {
		return 0, 0, 0, false
	}
	mg, vg := stat.MeanVariance(g, nil)
	mo, vo := stat.MeanVariance(o, nil)
	mt, vt := stat.MeanVariance(tools, nil)
	d := mg - mo
	if d <= 0 {
		return 0, 0, 0, false
	}
	ng := float64(len(g))
	sampling := (vg/ng+vo/float64(len(o)))/(d*d) + vt/(float64(len(tools))*mt*mt)
	return math.Log(d / mt), sampling * ng, ng, true
}

// FitPopulation estimates the population from the spread between the
// sources: for each parameter, every source's location on the log
// scale and the sampling variance of that location (the variance of
// one value over their number; a source of one value takes the pooled
// variance of the others); the parameter's spread is the square root of
// the locations' variance less the mean sampling variance (a
// method-of-moments estimate of a random effect), 0 when sampling
// explains the differences, and 0 with fewer than two sources.
func FitPopulation(sources []Source) (fakemodel.Population, []Spread) {
	var p fakemodel.Population
	var out []Spread
	for _, m := range spreadMeasures {
		sp := Spread{Parameter: m.param, Measure: m.measure}
		type loc struct{ mean, variance, n float64 }
		locs := make([]loc, len(sources))
		var pooledSum, pooledDF float64
		for i := range sources {
			mean, variance, n, ok := m.loc(&sources[i].Figures)
			if !ok {
				locs[i] = loc{mean: math.NaN()}
				continue
			}
			locs[i] = loc{mean: mean, variance: variance, n: n}
			if !math.IsNaN(variance) {
				pooledSum += variance * (n - 1)
				pooledDF += n - 1
			}
		}
		var means, sampling []float64
		for i, l := range locs {
			if math.IsNaN(l.mean) {
				continue
			}
			sp.Locations = append(sp.Locations, Location{Source: sources[i].Name, Log: round3(l.mean), N: int(l.n)})
			v := l.variance
			if math.IsNaN(v) {
				v = 0
				if pooledDF > 0 {
					v = pooledSum / pooledDF
				}
			}
			means = append(means, l.mean)
			sampling = append(sampling, v/l.n)
		}
		if len(means) >= 2 {
			sp.Between = stat.Variance(means, nil)
			sp.Sampling = stat.Mean(sampling, nil)
			sp.Sigma = round3(min(math.Sqrt(max(sp.Between-sp.Sampling, 0)), 3))
			sp.Between, sp.Sampling = round3(sp.Between), round3(sp.Sampling)
		}
		switch m.param {
		case "start_context":
			p.StartContext = sp.Sigma
		case "output":
			p.Output = sp.Sigma
		case "replies":
			p.Replies = sp.Sigma
		case "tools":
			p.Tools = sp.Sigma
		case "tool_result":
			p.ToolResult = sp.Sigma
		}
		out = append(out, sp)
	}
	return p, out
}
