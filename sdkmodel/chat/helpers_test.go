package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/sdkmodel/chat"
)

// newModel is a Model pointed at a fresh fake server playing script,
// which the test closes at its end; the server is returned for its
// records.
func newModel(t testing.TB, script []fakemodel.Step, cfg chat.Config) (*chat.Model, *wire.Server) {
	t.Helper()
	srv := fakeapi.NewServer(&fakemodel.Model{Script: script, Window: 200_000}, wire.Options{})
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.APIKey = srv.URL+"/v1", "loopsim-test"
	m, err := chat.New(cfg)
	require.NoError(t, err)
	return m, srv
}

func labels(recs []wire.Record) []string { return wire.Labels(recs) }
