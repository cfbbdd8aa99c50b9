package sim

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/loopsim/loopsim/fakemodel"
)

// HeldOut is how well a fit predicts sources it never saw: the summary
// per figure of a leave-one-source-out cross-validation
// ([CrossValidate]), with what it was run on. A workload file carries
// it (`simulate calibrate -cv`), and the summary's calibration table
// shows it beside each figure.
type HeldOut struct {
	// Command is the command that measured it.
	Command string `json:"command"`
	// Sources are the sources, each held out once.
	Sources []string `json:"sources"`
	// Population is set when each fold fitted a population.
	Population bool `json:"population"`
	// Users is the number of simulated users per held-out source.
	Users int `json:"users"`
	// Figures are the summaries per figure.
	Figures []CVFigure `json:"figures"`
}

// HeldOutOf summarises cv, run by command.
func HeldOutOf(cv *CrossValidation, command string) *HeldOut {
	h := &HeldOut{Command: command, Population: cv.Population, Users: cv.Users, Figures: cv.Figures()}
	for _, f := range cv.Folds {
		h.Sources = append(h.Sources, f.Source)
	}
	return h
}

// Sentence says in one sentence how well the fit predicted the sources
// held out.
func (h *HeldOut) Sentence() string {
	var cells, inside, tol int
	var abs float64
	for _, f := range h.Figures {
		cells += f.Sources
		inside += f.Inside
		tol += f.WithinTolerance
		abs += f.MeanAbsError * float64(f.Sources)
	}
	if cells == 0 {
		return "Held out: no figure measured."
	}
	kind := "one user"
	if h.Population {
		kind = "a population of users"
	}
	return fmt.Sprintf("Held out (leave-one-source-out over %d sources, each fit %s, `%s`): of %d figures of sources the fit never saw, %d lay in the band 80%% of simulated users of their size fall in, %d were predicted within tolerance; mean |error| %.0f%%.",
		len(h.Sources), kind, h.Command, cells, inside, tol, 100*abs/float64(cells))
}

// Figure is the summary of the named figure, if held out.
func (h *HeldOut) Figure(name string) (CVFigure, bool) {
	for _, f := range h.Figures {
		if f.Figure == name {
			return f, true
		}
	}
	return CVFigure{}, false
}

//go:embed calibration_heldout.json
var heldOutJSON []byte

var defaultHeldOut = sync.OnceValues(func() (*HeldOut, error) {
	var h HeldOut
	if err := json.Unmarshal(heldOutJSON, &h); err != nil {
		return nil, fmt.Errorf("calibration_heldout.json: %w", err)
	}
	return &h, nil
})

// DefaultHeldOut is how well the fit of the built-in workload
// ([fakemodel.DefaultWorkload]) predicts sources it never saw, kept in
// the repository (calibration_heldout.json, written by `simulate
// calibrate -cv` over the maintainers' transcripts; docs/calibration.md).
func DefaultHeldOut() (*HeldOut, error) { return defaultHeldOut() }

// Attach sets each row's held-out summary from h (nil: none).
func (h *HeldOut) Attach(rows []CalibrationRow) {
	if h == nil {
		return
	}
	for i := range rows {
		if f, ok := h.Figure(rows[i].Figure); ok {
			rows[i].HeldOut = &f
		}
	}
}

// HeldOutFor finds how well the fit of s's workload predicts sources it
// never saw: from s's workload file if it runs on one, from
// [DefaultHeldOut] if its fitted parameters are the built-in workload's
// (faults and other assumptions may differ: the fit does not set them).
// Without one it says why.
func HeldOutFor(s Setting) (*HeldOut, string) {
	if s.WorkloadFile != "" {
		wf, err := ReadWorkloadFile(s.WorkloadFile)
		if err != nil {
			return nil, fmt.Sprintf("Held out: not known (%v).", err)
		}
		if wf.HeldOut == nil {
			return nil, "Held out: not known (the workload file holds no cross-validation; `simulate calibrate -cv` writes one)."
		}
		return wf.HeldOut, ""
	}
	if !fittedAsDefault(s.Workload) {
		return nil, "Held out: not known (the workload's fitted parameters differ from the built-in workload's)."
	}
	h, err := DefaultHeldOut()
	if err != nil {
		return nil, fmt.Sprintf("Held out: not known (%v).", err)
	}
	if len(h.Figures) == 0 {
		return nil, "Held out: not known (no cross-validation of the built-in workload is kept)."
	}
	return h, ""
}

// fittedAsDefault reports whether w's fitted parameters are the
// built-in workload's.
func fittedAsDefault(w fakemodel.Workload) bool {
	d := fakemodel.DefaultWorkload()
	return w.StartContext == d.StartContext && w.Replies == d.Replies && w.Output == d.Output && w.Tools == d.Tools &&
		w.ToolResult == d.ToolResult && w.Summary == d.Summary && w.Population == d.Population
}
