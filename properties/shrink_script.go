package properties

import (
	"fmt"
	"slices"

	"github.com/loopsim/loopsim/fakemodel"
)

// ShrinkScript makes c's script smaller while breaks still holds of its
// run: it drops steps one at a time, then replaces each step by an
// earlier letter of letters (the alphabet's order is simplest first),
// until no change keeps breaks true. c's own run must break.
func ShrinkScript(c Case, letters []Letter, breaks func(Run) bool) (Case, error) {
	holds := func(script []fakemodel.Step) (bool, error) {
		t := c
		t.Script = script
		r, err := t.Execute()
		if err != nil {
			return false, fmt.Errorf("shrink script: %w", err)
		}
		return breaks(r), nil
	}
	ok, err := holds(c.Script)
	if err != nil {
		return c, err
	}
	if !ok {
		return c, fmt.Errorf("shrink script: the case's own run does not break")
	}
	script := slices.Clone(c.Script)
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(script); i++ {
			shorter := slices.Delete(slices.Clone(script), i, i+1)
			if ok, err := holds(shorter); err != nil {
				return c, err
			} else if ok {
				script, changed = shorter, true
				i--
			}
		}
		for i := range script {
			for _, l := range letters {
				if FormatStep(l.Step) == FormatStep(script[i]) {
					break // only earlier letters
				}
				simpler := slices.Clone(script)
				simpler[i] = l.Step
				if ok, err := holds(simpler); err != nil {
					return c, err
				} else if ok {
					script, changed = simpler, true
					break
				}
			}
		}
	}
	c.Script = script
	return c, nil
}
