package fakemodel

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestDefaultWorkloadIsValid(t *testing.T) {
	if err := DefaultWorkload().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestWorkloadWith(t *testing.T) {
	w, err := DefaultWorkload().With("output.median", "250")
	if err != nil {
		t.Fatal(err)
	}
	if w.Output.Median != 250 {
		t.Errorf("output.median = %v, want 250", w.Output.Median)
	}
	if w, err = w.With("faults.overloaded", "0.25"); err != nil || w.Faults.Overloaded != 0.25 {
		t.Errorf("faults.overloaded: %v, %v", w.Faults.Overloaded, err)
	}
	if w, err = w.With("replies.max", "2_000"); err != nil || w.Replies.Max != 2000 {
		t.Errorf("replies.max: %v, %v", w.Replies.Max, err)
	}
	if w, err = w.With("swarm", "true"); err != nil || !w.Swarm {
		t.Errorf("swarm: %v, %v", w.Swarm, err)
	}
	if DefaultWorkload().Output.Median == 250 {
		t.Error("With changed the receiver")
	}
}

func TestWorkloadWithRejectsBadInput(t *testing.T) {
	for _, c := range []struct{ path, value, want string }{
		{"outptu.median", "1", `no parameter "outptu.median"`},
		{"output.median.x", "1", "no parameter"},
		{"output", "1", "group of parameters"},
		{"output.median", "ten", "not a number"},
		{"output.median", "-3", "median -3 must be positive"},
		{"replies.min", "0", "min must be at least 1"},
		{"faults.abort", "1.5", "not a probability"},
		{"tools.max", "x", "not an integer"},
		{"swarm", "maybe", "not true or false"},
	} {
		_, err := DefaultWorkload().With(c.path, c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("With(%q, %q) = %v, want an error containing %q", c.path, c.value, err, c.want)
		}
	}
}

func TestWorkloadFields(t *testing.T) {
	f := WorkloadFields()
	for _, want := range []string{"start_context.min", "output.median", "tools.mean", "faults.overloaded", "faults.abort", "swarm"} {
		if !slices.Contains(f, want) {
			t.Errorf("WorkloadFields lacks %q: %v", want, f)
		}
	}
	for _, path := range f {
		if _, err := DefaultWorkload().With(path, "1"); err != nil && strings.Contains(err.Error(), "no parameter") {
			t.Errorf("listed field %q is not settable: %v", path, err)
		}
	}
}

func TestSwarmDrawsAroundTheRates(t *testing.T) {
	base := DefaultWorkload().Faults
	r := rand.New(rand.NewPCG(9, 10))
	off, n := 0, 0
	for range 2_000 {
		f := base.Swarm(r)
		got, want := f.fields(), base.fields()
		for i, x := range got {
			p, b := *x.p, max(*want[i].p, swarmFloor)
			switch {
			case x.repeat:
				if p < 0 || p > 1 {
					t.Fatalf("%s = %v is not a probability", x.name, p)
				}
			case p == 0:
				off++
				n++
			default:
				n++
				if p < b/10*(1-1e-9) || p > min(10*b, 1)*(1+1e-9) {
					t.Fatalf("%s = %v outside [%v, %v]", x.name, p, b/10, min(10*b, 1))
				}
			}
		}
	}
	if frac := float64(off) / float64(n); frac < 0.45 || frac > 0.55 {
		t.Errorf("%.2f of the faults switched off, want about half", frac)
	}
	a := base.Swarm(rand.New(rand.NewPCG(1, 1)))
	b := base.Swarm(rand.New(rand.NewPCG(1, 1)))
	if a != b {
		t.Error("swarm is not a function of its stream")
	}
}
