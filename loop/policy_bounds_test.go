package loop

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPolicyRangesIncludeTheirBounds: every ranged field accepts both ends
// of its range and refuses a value just outside either; collapse's commit
// threshold may equal its stage threshold.
func TestPolicyRangesIncludeTheirBounds(t *testing.T) {
	text := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, r := range policyRules() {
		if r.oneof != nil {
			continue
		}
		base := Seed()
		// the commit threshold must not be under the stage threshold:
		// leave room for whichever of the two is set
		base.CollapseStagePercent, base.CollapseCommitPercent = 1, 100
		for _, v := range []float64{r.lo, r.hi} {
			_, err := base.With(r.name, text(v))
			assert.NoError(t, err, "%s = %s", r.name, text(v))
		}
		step := 1.0
		if r.kind == reflect.Float64 {
			step = 1e-9
		}
		for _, v := range []float64{r.lo - step, r.hi + step} {
			_, err := base.With(r.name, text(v))
			var pe *PolicyError
			if assert.ErrorAs(t, err, &pe, "%s = %s", r.name, text(v)) {
				assert.Equal(t, r.name, pe.Field)
			}
		}
	}
	p := Seed()
	p.CollapseStagePercent, p.CollapseCommitPercent = 85, 85
	assert.NoError(t, p.Validate(), "commit at the stage threshold")
}
