package sim

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/loopsim/loopsim/transcript"
)

// Targets are the calibration targets: the figures measured on real
// session transcripts, per model and pooled, with where each transcript
// came from. They are part of the repository (calibration_targets.json,
// embedded), so a simulation compares itself with them on any checkout;
// `go test ./sim -run TestTargets -update` measures them again from the
// transcripts the maintainers keep beside the repository (see
// docs/calibration.md); without them the test is skipped.
type Targets struct {
	// Measured says how the targets were measured.
	Measured string `json:"measured"`
	// Sources are the transcripts, one per file.
	Sources []TargetSource `json:"sources"`
	// Sets are the targets: the pooled Claude Code set ([PooledTargets])
	// and one per model.
	Sets []TargetSet `json:"sets"`
	// Rework observes what followed each compaction (see
	// [MeasureRework]): the evidence for the compaction-rework
	// assumption.
	Rework []ReworkObservation `json:"rework"`
}

// TargetSource is one transcript the targets were measured on:
// normalized counts only, no content.
type TargetSource struct {
	// File is its path under the transcripts folder.
	File string `json:"file"`
	// Repository and Commit are where it was published; Licence its
	// licence.
	Repository string `json:"repository"`
	Commit     string `json:"commit"`
	Licence    string `json:"licence"`
	// Format is the log's format; Model the model of most of its calls.
	Format string `json:"format"`
	Model  string `json:"model"`
	// Calls, Prompts and Compactions count what the reader found.
	Calls       int `json:"calls"`
	Prompts     int `json:"prompts"`
	Compactions int `json:"compactions"`
	// Injected counts the user lines the reader told apart from prompts,
	// by kind.
	Injected map[string]int `json:"injected,omitempty"`
}

// TargetSet is the targets of one model, or of a pool of models.
type TargetSet struct {
	// Name is the model's name, or [PooledTargets].
	Name string `json:"name"`
	// Sessions and Calls count what the figures were measured on.
	Sessions int `json:"sessions"`
	Calls    int `json:"calls"`
	// Figures are the figures (see [Measure]).
	Figures []Target `json:"figures"`
}

// Target is one figure measured on real sessions.
type Target struct {
	// Figure names the figure ("growth per call, median").
	Figure string `json:"figure"`
	// Value is the figure (0 when N is 0).
	Value float64 `json:"value"`
	// N is the number of values it was measured on.
	N int `json:"n"`
}

// PooledTargets names the target set of every Claude Code transcript,
// all models pooled: what [fakemodel.DefaultWorkload] is calibrated on.
const PooledTargets = "claude-code"

//go:embed calibration_targets.json
var targetsJSON []byte

var defaultTargets = sync.OnceValues(func() (Targets, error) {
	var t Targets
	if err := json.Unmarshal(targetsJSON, &t); err != nil {
		return t, fmt.Errorf("calibration_targets.json: %w", err)
	}
	return t, nil
})

// DefaultTargets are the targets kept in the repository.
func DefaultTargets() (Targets, error) { return defaultTargets() }

// Set is the target set named name.
func (t Targets) Set(name string) (TargetSet, bool) {
	for _, s := range t.Sets {
		if s.Name == name {
			return s, true
		}
	}
	return TargetSet{}, false
}

// Names lists the target sets' names.
func (t Targets) Names() []string {
	out := make([]string, len(t.Sets))
	for i, s := range t.Sets {
		out[i] = s.Name
	}
	return out
}

// MeasureTargets measures the targets from the session logs under dir
// (every *.jsonl, subagents left out): the pooled set of its Claude Code
// logs, then one set per model. provenance gives each log's repository,
// commit and licence by its top folder under dir ("claude-code/spotter").
func MeasureTargets(dir string, provenance map[string]TargetSource) (Targets, error) {
	sessions, err := ReadSessions(dir)
	if err != nil {
		return Targets{}, fmt.Errorf("targets: %w", err)
	}
	t := Targets{Measured: "go test ./sim -run TestTargets -update (reads ../shared/data/transcripts with package transcript)"}
	var pooled Figures
	for _, s := range sessions {
		rel, err := filepath.Rel(dir, s.Name)
		if err != nil {
			return t, fmt.Errorf("targets: %w", err)
		}
		rel = filepath.ToSlash(rel)
		src := provenance[topFolder(rel)]
		src.File, src.Format, src.Model = rel, string(s.Format), s.Model()
		for _, e := range s.Events {
			switch e.Kind {
			case transcript.EventCall:
				src.Calls++
			case transcript.EventPrompt:
				src.Prompts++
			case transcript.EventCompaction:
				src.Compactions++
			}
		}
		for _, k := range transcript.InjectedKinds() {
			if n := s.Injected[k]; n > 0 {
				if src.Injected == nil {
					src.Injected = map[string]int{}
				}
				src.Injected[k.String()] = n
			}
		}
		t.Sources = append(t.Sources, src)
		if s.Format == transcript.ClaudeCode {
			pooled.AddSession(s)
			t.Rework = append(t.Rework, MeasureRework(s, rel)...)
		}
	}
	t.Sets = append(t.Sets, TargetSet{Name: PooledTargets, Sessions: pooled.Sessions, Calls: pooled.Tools.N(), Figures: Measure(&pooled)})
	models, byModel := FiguresByModel(sessions)
	for _, m := range models {
		f := byModel[m]
		t.Sets = append(t.Sets, TargetSet{Name: m, Sessions: f.Sessions, Calls: f.Tools.N(), Figures: Measure(f)})
	}
	return t, nil
}

// topFolder is the first two elements of a slash-separated path.
func topFolder(rel string) string {
	parts := strings.SplitN(rel, "/", 3)
	if len(parts) < 3 {
		return rel
	}
	return parts[0] + "/" + parts[1]
}

// ReworkWindow is the number of calls before and after a compaction that
// [MeasureRework] compares.
const ReworkWindow = 30

// ReworkObservation compares the calls after one compaction with those
// before it: how many of their Read calls re-read a file read earlier in
// the session. An excess after the compaction is work the summary lost.
type ReworkObservation struct {
	// File is the session log, relative to the transcripts' folder.
	File string `json:"file"`
	// PreTokens is the context the compaction started from.
	PreTokens int `json:"pre_tokens"`
	// Before and After count the re-reads in the [ReworkWindow] calls
	// before and after the compaction.
	Before int `json:"rereads_before"`
	After  int `json:"rereads_after"`
}

// Excess is the re-reads after the compaction beyond those before.
func (o ReworkObservation) Excess() int { return o.After - o.Before }

// MeasureRework observes every compaction of a session with at least a
// few calls on each side; only logs that record tool inputs (Claude
// Code's) can show re-reads.
func MeasureRework(s *transcript.Session, file string) []ReworkObservation {
	var out []ReworkObservation
	var calls []transcript.Call
	type mark struct{ at, pre int }
	var marks []mark
	for _, e := range s.Events {
		switch e.Kind {
		case transcript.EventCall:
			calls = append(calls, e.Call)
		case transcript.EventCompaction:
			marks = append(marks, mark{len(calls), e.Compaction.PreTokens})
		}
	}
	sum := func(cs []transcript.Call) int {
		n := 0
		for _, c := range cs {
			n += c.Rereads
		}
		return n
	}
	for _, m := range marks {
		if m.at < 5 || len(calls)-m.at < 5 {
			continue
		}
		before := calls[max(0, m.at-ReworkWindow):m.at]
		after := calls[m.at:min(len(calls), m.at+ReworkWindow)]
		out = append(out, ReworkObservation{File: file, PreTokens: m.pre, Before: sum(before), After: sum(after)})
	}
	return out
}
