package sim

import (
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// transcripts is where the real transcripts are, beside the repository.
const transcripts = "../../shared/data/transcripts"

// realFigures reads the transcripts once for every test that needs them.
var realFigures = sync.OnceValues(func() (Figures, error) { return ReadTranscripts(transcripts) })

func readRealFigures(t *testing.T) Figures {
	t.Helper()
	if _, err := os.Stat(transcripts); err != nil {
		t.Skipf("no transcripts at %s: %v", transcripts, err)
	}
	real, err := realFigures()
	require.NoError(t, err)
	return real
}

// TestTranscriptFigures: the reader measures what the transcripts'
// README says they hold.
func TestTranscriptFigures(t *testing.T) {
	real := readRealFigures(t)
	for _, c := range []struct {
		name     string
		got      float64
		min, max float64
	}{
		{"sessions", float64(real.Sessions), 5, 5},
		{"calls", float64(real.Tools.N()), 700, 800},
		{"growth median (README 523)", real.Growth.Quantile(0.5), 470, 580},
		{"growth p90 (README 2,755)", real.Growth.Quantile(0.9), 2_500, 3_000},
		{"output median (README 171)", real.Output.Quantile(0.5), 150, 200},
		{"output p90 (README 744)", real.Output.Quantile(0.9), 680, 810},
		{"tools per call (README 1.1-1.3)", real.Tools.Mean(), 1.05, 1.3},
		{"auto-compactions (README: 3)", float64(real.CompactAt.N()), 3, 3},
		{"compactions followed by a call (4)", float64(real.AfterCompact.N()), 4, 4},
	} {
		assert.False(t, c.got < c.min, "%s = %v, want in [%v, %v]", c.name, c.got, c.min, c.max)
		assert.False(t, c.got > c.max, "%s = %v, want in [%v, %v]", c.name, c.got, c.min, c.max)
	}
}

func TestCompareFlagsAFigureOutOfTolerance(t *testing.T) {
	var real, simulated Figures
	for v := range int64(100) {
		real.Growth.Add(500 + v)
		simulated.Growth.Add(1_000 + v)
	}
	for _, r := range Compare(&real, &simulated) {
		if r.Figure == "growth per call, median" {
			assert.False(t, r.OK, "a median twice the real one passed: %+v", r)
		}
	}
}
