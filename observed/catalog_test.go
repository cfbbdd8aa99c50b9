package observed_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/observed"
)

// A case's model that the catalog knows has the catalog's window and
// output maximum, and every streaming main request the agent made of it
// without a user setting of the output maximum asked for that maximum.
func TestCatalogAgreesWithObservations(t *testing.T) {
	cases, err := observed.LoadCases(casesDir) // Claude Code's: the catalog is of its models
	require.NoError(t, err)
	known := 0
	for _, c := range cases {
		s := suites[0].load(t, c)
		k, err := loop.LookupModel(s.Model.Name)
		if err != nil {
			continue
		}
		known++
		assert.Equal(t, k.ContextWindow, s.Model.ContextWindow, "%s: window of %s", c.Name, k.Name)
		assert.Equal(t, k.MaxOutputTokens, s.Model.MaxOutputTokens, "%s: output maximum of %s", c.Name, k.Name)
		if len(c.Env) > 0 || len(c.Settings) > 0 {
			continue // a user setting may replace the maximum
		}
		o, err := observed.ReadObservation(observedDir + "/" + c.Name + ".json")
		require.NoError(t, err)
		for _, r := range o.Requests {
			if r.Purpose == string(loop.PurposeMain) && r.Stream && r.Model == k.Name {
				assert.Equal(t, k.MaxOutputTokens, r.MaxTokens, "%s: request %d", c.Name, r.Seq)
			}
		}
	}
	assert.Positive(t, known, "no case uses a model of the catalog")
}
