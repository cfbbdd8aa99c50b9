package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/sdkmodel/gemini"
)

// newModel is a Model pointed at a fresh fake server playing script,
// which the test closes at its end.
func newModel(t testing.TB, script []fakemodel.Step) *gemini.Model {
	t.Helper()
	srv := fakeapi.NewServer(&fakemodel.Model{Script: script}, wire.Options{})
	t.Cleanup(srv.Close)
	m, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "loopsim-test", SendInputTokens: true})
	require.NoError(t, err)
	return m
}
