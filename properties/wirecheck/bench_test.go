package wirecheck

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCheckAgent measures how many cases a second an in-process
// agent over an official SDK is checked at: a drawn case served from a
// fresh server, one session, the invariants. Rate limits carry no
// retry-after here, so that the figure is wirecheck's cost, not the
// agent's waiting.
//
//	go test ./properties/wirecheck -run '^$' -bench CheckAgent -cpu 1
func BenchmarkCheckAgent(b *testing.B) {
	o := Options{MaxRetries: 3, RetryAfters: []time.Duration{0}}.withDefaults()
	gen := caseGen(o)
	agent := testAgent{maxRetries: 3}.run
	cases := make([]Case, 64)
	for i := range cases {
		cases[i] = gen.Example(i)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r, err := Play(context.Background(), agent, cases[i%len(cases)], o)
		if err != nil {
			b.Fatal(err)
		}
		if v := Check(r); len(v) > 0 {
			b.Fatalf("the correct agent broke %v", v)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}
