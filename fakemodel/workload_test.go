package fakemodel

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultWorkloadIsValid(t *testing.T) {
	require.NoError(t, DefaultWorkload().Validate())
}

func TestWorkloadWith(t *testing.T) {
	w, err := DefaultWorkload().With("output.median", "250")
	require.NoError(t, err)
	assert.Equal(t, 250.0, w.Output.Median, "output.median")
	w, err = w.With("faults.overloaded", "0.25")
	assert.NoError(t, err, "faults.overloaded")
	assert.Equal(t, 0.25, w.Faults.Overloaded, "faults.overloaded")
	w, err = w.With("replies.max", "2_000")
	assert.NoError(t, err, "replies.max")
	assert.Equal(t, 2000, w.Replies.Max, "replies.max")
	w, err = w.With("swarm", "true")
	assert.NoError(t, err, "swarm")
	assert.True(t, w.Swarm, "swarm")
	assert.NotEqual(t, 250.0, DefaultWorkload().Output.Median, "With changed the receiver")
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
		assert.ErrorContains(t, err, c.want, "With(%q, %q)", c.path, c.value)
	}
}

func TestWorkloadFields(t *testing.T) {
	f := WorkloadFields()
	for _, want := range []string{"start_context.min", "output.median", "tools.mean", "faults.overloaded", "faults.abort", "swarm"} {
		assert.Contains(t, f, want, "WorkloadFields")
	}
	for _, path := range f {
		if _, err := DefaultWorkload().With(path, "1"); err != nil {
			assert.NotContains(t, err.Error(), "no parameter", "listed field %q is not settable", path)
		}
	}
}

func TestSwarmDrawsAroundTheRates(t *testing.T) {
	base := DefaultWorkload().Faults
	base.StreamErrorAfterContent = 0.4
	r := rand.New(rand.NewPCG(9, 10))
	off, n := 0, 0
	for range 2_000 {
		f := base.Swarm(r)
		got, want := f.fields(), base.fields()
		for i, x := range got {
			p, b := *x.p, max(*want[i].p, swarmFloor)
			switch {
			case x.share:
				require.Equal(t, *want[i].p, p, "%s is kept as given", x.name)
			case x.repeat:
				require.False(t, p < 0 || p > 1, "%s = %v is not a probability", x.name, p)
			case p == 0:
				off++
				n++
			default:
				n++
				require.False(t, p < b/10*(1-1e-9) || p > min(10*b, 1)*(1+1e-9), "%s = %v outside [%v, %v]", x.name, p, b/10, min(10*b, 1))
			}
		}
	}
	frac := float64(off) / float64(n)
	assert.GreaterOrEqual(t, frac, 0.45, "the fraction of the faults switched off, want about half")
	assert.LessOrEqual(t, frac, 0.55, "the fraction of the faults switched off, want about half")
	a := base.Swarm(rand.New(rand.NewPCG(1, 1)))
	b := base.Swarm(rand.New(rand.NewPCG(1, 1)))
	assert.Equal(t, a, b, "swarm is a function of its stream")
}
