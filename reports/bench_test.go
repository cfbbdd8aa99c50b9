package reports

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/sim"
)

// countingWriter counts what is written to it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkRecorder measures what recording costs per episode (the
// simulation itself aside) and the bytes per episode of the file: 2,000
// simulated episodes of the claude-code profile are recorded over and
// over under fresh indices and seeds.
//
//	go test ./reports -run X -bench Recorder -benchtime 1000000x
func BenchmarkRecorder(b *testing.B) {
	s, err := sim.NewSetting("claude-code")
	if err != nil {
		b.Fatal(err)
	}
	var eps []sim.Episode
	_, err = sim.Run(context.Background(), sim.Config{Settings: []sim.Setting{s}, Episodes: 2000, Seed: 1, Prices: sim.DefaultPrices, Workers: 1,
		OnEpisode: func(_ int, ep *sim.Episode) { eps = append(eps, *ep) }})
	if err != nil {
		b.Fatal(err)
	}
	var w countingWriter
	rec, err := NewRecorder(&w, Header{Episodes: b.N, Settings: []sim.Setting{s}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		ep := eps[i%len(eps)]
		ep.Index, ep.Seed = i, sim.EpisodeSeed(1, i)
		rec.Add(0, &ep)
	}
	if err := rec.Close(nil); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(w.n)/float64(b.N), "bytes/episode")
}
