package htmlreport

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// exampleScenario has a tool call, a dropped connection and its retry
// (582 ms), a prompt-too-long, a reactive compaction and a completed end.
const exampleScenario = "cc-wire-answers-by-purpose"

func goldenTrace(t *testing.T, name string) loop.Trace {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "scenarios", "testdata", "golden", name+".jsonl"))
	require.NoError(t, err)
	defer f.Close()
	tr, err := loop.ReadJSONL(f)
	require.NoError(t, err)
	return tr
}

func TestFromTraceContent(t *testing.T) {
	tl := FromTrace("example", goldenTrace(t, exampleScenario))
	var lanes []string
	for _, l := range tl.Lanes {
		lanes = append(lanes, l.Name)
	}
	assert.Equal(t, []string{"iterations", "requests", "tools 1"}, lanes)
	classes := map[string]int{}
	for _, m := range tl.Marks {
		classes[m.Class]++
	}
	for _, c := range []string{"fault", "retry", "compaction", "transition", "terminal"} {
		assert.Positive(t, classes[c], "a %s mark", c)
	}
	failed := 0
	for _, s := range tl.Lanes[1].Spans {
		assert.LessOrEqual(t, s.Start, s.End)
		if s.Class == "failed" {
			failed++
		}
	}
	assert.Positive(t, failed, "the dropped request is drawn failed")
	require.NotEmpty(t, tl.Counter.Points)
	assert.Equal(t, 3000, tl.Counter.Points[0].Value, "the context starts at the first request's input")
	assert.Greater(t, tl.End, 582*time.Millisecond, "the retry's delay passes in simulated time")
}

// TestTimelineSVGGeometry: x grows with time, and the retry's 582 ms
// are drawn shortened (narrower than 582 ticks) but wider than a tick.
func TestTimelineSVGGeometry(t *testing.T) {
	tl := FromTrace("example", goldenTrace(t, exampleScenario))
	svg := string(tl.SVG())
	gap := regexp.MustCompile(`<rect class="tl-gap" x="([0-9.]+)" y="\d+" width="([0-9.]+)"`).FindStringSubmatch(svg)
	require.NotNil(t, gap, "the retry's wait is drawn as a gap")
	w, err := strconv.ParseFloat(gap[2], 64)
	require.NoError(t, err)
	assert.Greater(t, w, float64(tlGapTicks)*tlMinTick)
	assert.Less(t, w, 582*tlMinTick)
	assert.Contains(t, svg, "+583 ms", "the retry's 582 ms and the retry event's own tick")
	var last float64 = -1
	for _, m := range regexp.MustCompile(`<text class="tl-tick" x="([0-9.]+)"`).FindAllStringSubmatch(svg, -1) {
		x, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		assert.Greater(t, x, last, "time labels left to right")
		last = x
	}
	assert.NoError(t, Check(svg))
}

func TestEmptyTimeline(t *testing.T) {
	tl := FromTrace("empty", nil)
	assert.Equal(t, time.Duration(0), tl.End)
	assert.NoError(t, Check(string(tl.SVG())))
}
