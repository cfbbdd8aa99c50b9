package properties

import (
	"testing"

	"github.com/loopsim/loopsim/loop"
)

// benchCases draws n cases of profile p (scripts of up to MaxScriptSteps
// steps), each from its own fixed seed.
func benchCases(b *testing.B, p loop.Policy, n int) []Case {
	b.Helper()
	g := CaseGen(p)
	out := make([]Case, n)
	for i := range out {
		out[i] = g.Example(i)
	}
	return out
}

// BenchmarkPropertyCase measures property cases a second on one core:
// run one generated case (scripts of up to 20 steps) against fresh fakes
// and check every invariant. Target: at least 10,000 cases/s.
func BenchmarkPropertyCase(b *testing.B) {
	for _, name := range loop.Profiles() {
		b.Run(name, func(b *testing.B) {
			p, err := loop.Profile(name)
			if err != nil {
				b.Fatal(err)
			}
			cases := benchCases(b, p, 512)
			i := 0
			for b.Loop() {
				r, err := cases[i%len(cases)].Execute()
				if err != nil {
					b.Fatal(err)
				}
				_ = Check(r)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
		})
	}
}

// BenchmarkPropertyCaseGenerated is BenchmarkPropertyCase with the
// drawing of each case by the generators included.
func BenchmarkPropertyCaseGenerated(b *testing.B) {
	for _, name := range loop.Profiles() {
		b.Run(name, func(b *testing.B) {
			p, err := loop.Profile(name)
			if err != nil {
				b.Fatal(err)
			}
			g := CaseGen(p)
			i := 0
			for b.Loop() {
				r, err := g.Example(i).Execute()
				if err != nil {
					b.Fatal(err)
				}
				_ = Check(r)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
		})
	}
}

// BenchmarkExhaustive measures the exhaustive explorer in the plain
// environment of each profile: runs a second, and scripts a second (the
// scripts of length at most 3 the runs stand for).
func BenchmarkExhaustive(b *testing.B) {
	for _, name := range loop.Profiles() {
		b.Run(name, func(b *testing.B) {
			p, err := loop.Profile(name)
			if err != nil {
				b.Fatal(err)
			}
			env := Environments(p)[0]
			letters, forever := Alphabet(p, env.Case.Primary)
			var runs int
			var scripts int64
			for b.Loop() {
				stats, err := Explore(env.Case, letters, forever, 3, func(_ Case, r Run) bool {
					_ = Check(r)
					return true
				})
				if err != nil {
					b.Fatal(err)
				}
				runs += stats.Runs
				scripts += stats.Scripts
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(float64(scripts)/b.Elapsed().Seconds(), "scripts/s")
		})
	}
}
