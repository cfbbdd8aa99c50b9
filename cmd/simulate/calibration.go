package main

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/sim"
)

// calibrate compares the first setting with the calibration targets: the
// set of its model if the targets hold one, else the pooled Claude Code
// set; measured from -transcripts when given, else those kept in the
// repository.
func calibrate(ctx context.Context, s sim.Setting, o *simOptions) ([]sim.CalibrationRow, string) {
	if o.calibrate == 0 {
		return nil, "Not measured (-calibrate 0)."
	}
	var set sim.TargetSet
	from := "the targets kept in the repository (sim/calibration_targets.json)"
	if o.transcripts != "" {
		sessions, err := sim.ReadSessions(o.transcripts)
		if err != nil {
			return nil, fmt.Sprintf("Not measured: %v.", err)
		}
		var f sim.Figures
		for _, ss := range sessions {
			f.AddSession(ss)
		}
		set = sim.TargetSet{Name: "session logs under " + o.transcripts, Sessions: f.Sessions, Calls: f.Tools.N(), Figures: sim.Measure(&f)}
		from = "the session logs under " + o.transcripts
	} else {
		tg, err := sim.DefaultTargets()
		if err != nil {
			return nil, fmt.Sprintf("Not measured: %v.", err)
		}
		var ok bool
		if set, ok = tg.Set(s.Model.Name); !ok {
			set, _ = tg.Set(sim.PooledTargets)
		}
	}
	simulated, err := sim.Calibrate(ctx, s, o.calibrate, o.seed, o.workers)
	if err != nil {
		return nil, fmt.Sprintf("Not measured: %v.", err)
	}
	rows := sim.CompareTargets(set.Figures, &simulated)
	if set.Name != sim.PooledTargets {
		for i := range rows {
			rows[i].Published = "" // the README's figures are the pooled set's
		}
	}
	note := fmt.Sprintf("%d episodes against target set %q of %s: %d sessions, %d calls.",
		o.calibrate, set.Name, from, set.Sessions, set.Calls)
	h, why := sim.HeldOutFor(s)
	if h != nil {
		h.Attach(rows)
		why = h.Sentence()
	}
	return rows, note + " " + why
}
