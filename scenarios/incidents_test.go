package scenarios

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIncidentScenarios: the released agents' incidents (incidents/, run
// against the agents by agents.Incidents) load, are named after their
// files, answer by purpose, and do in process what they expect (the
// claude-code profile's loop). Their compaction answers are for the
// agents: the loop in process may leave them unplayed, so a script not
// used up is not a failure here.
func TestIncidentScenarios(t *testing.T) {
	list, err := Load("incidents")
	require.NoError(t, err)
	require.NotEmpty(t, list)
	for _, s := range list {
		t.Run(s.Name, func(t *testing.T) {
			assert.Equal(t, filepath.Join("incidents", s.Name+".yaml"), s.File)
			require.NotNil(t, s.Answers, "an incident answers by purpose, so side requests do not take its steps")
			assert.Contains(t, s.Source, "#", "the source names the issue")
			out, err := Run(context.Background(), s)
			require.NoError(t, err)
			out.Got.Harness = withoutUnused(out.Got.Harness)
			assert.True(t, out.Passed(), "%s (-want +got):\n%s", s.File, out.Diff())
		})
	}
}

// withoutUnused drops the "not used up" faults from a run's harness faults
// and keeps the others (a script that ran out).
func withoutUnused(harness []string) []string {
	var out []string
	for _, h := range harness {
		if !strings.HasPrefix(h, "the script was not used up") {
			out = append(out, h)
		}
	}
	return out
}
