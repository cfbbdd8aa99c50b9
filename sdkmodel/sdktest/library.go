package sdktest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

// NewModel builds the model under test, an SDK client pointed at the fake
// server whose root URL is baseURL (a constructor adds any path prefix its
// API needs, such as "/v1").
type NewModel func(baseURL string) (loop.Model, error)

// RunLibrary checks that every scenario of the library gives the same
// trace when the loop calls the fake server through the model newModel
// builds as when it calls the scripted model in-process, but for the
// differences the wire forces: a dropped connection's message is not
// compared (traceLines), and the scenarios named in limits, each with the
// reason its wire cannot carry it, must differ. A listed scenario whose
// traces are equal fails, so that the list stays true.
func RunLibrary(t *testing.T, newModel NewModel, limits map[string]string) {
	t.Helper()
	lib, err := scenarios.Library()
	require.NoError(t, err)
	for _, s := range lib {
		t.Run(s.Name, func(t *testing.T) {
			if s.Skip != "" {
				t.Skip(s.Skip)
			}
			in, err := scenarios.Run(t.Context(), s)
			require.NoError(t, err)
			over, err := overTheWire(t.Context(), s, newModel)
			require.NoError(t, err)
			diff := cmp.Diff(traceLines(t, in.Result.Trace), traceLines(t, over.Result.Trace))
			if why, ok := limits[s.Name]; ok {
				assert.NotEmpty(t, diff, "listed as differing over the wire (%s), but the traces are equal: drop it from wireLimits", why)
				return
			}
			assert.Empty(t, diff, "trace in-process (-) vs over the wire (+)")
			assert.Equal(t, in.Got, over.Got)
		})
	}
}

// overTheWire runs a scenario with the loop calling the model newModel
// builds, pointed at the fake server answering from the scenario's script.
func overTheWire(ctx context.Context, s *scenarios.Scenario, newModel NewModel) (*scenarios.Outcome, error) {
	return scenarios.RunVia(ctx, s, func(script loop.Model, cancel context.CancelFunc) (scenarios.Via, error) {
		counted := &countingModel{}
		var srv *wire.Server
		// The user presses escape once the blocks before the abort have
		// reached the loop, as in-process: the server sends them, then
		// the run is cancelled when the loop has them all.
		onAbort := func() {
			recs := srv.Requests()
			counted.waitFor(recs[len(recs)-1].Blocks)
			cancel()
		}
		srv, err := fakeapi.Start(script, wire.Options{OnAbort: onAbort})
		if err != nil {
			return scenarios.Via{}, err
		}
		m, err := newModel(srv.URL)
		if err != nil {
			srv.Close()
			return scenarios.Via{}, err
		}
		counted.Model = m
		return scenarios.Via{Model: counted, Abort: srv.Abort, Close: srv.Close}, nil
	})
}

// traceLines is the trace as JSON Lines, normalized where the wire
// cannot be exact: a dropped connection's message is the HTTP client's,
// not the script's.
func traceLines(t *testing.T, tr loop.Trace) []string {
	t.Helper()
	norm := make(loop.Trace, len(tr))
	for i, e := range tr {
		if f, ok := e.(loop.RequestFailed); ok && f.Kind == loop.KindConnection {
			f.Message = "(connection dropped)"
			e = f
		}
		norm[i] = e
	}
	var b bytes.Buffer
	require.NoError(t, norm.WriteJSONL(&b))
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}
