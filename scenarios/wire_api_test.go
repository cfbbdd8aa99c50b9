package scenarios_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

// withWireAPI is the library scenario name with expect.wire.api set to
// api (YAML flow mapping text).
func withWireAPI(t *testing.T, name, api string) (*scenarios.Scenario, error) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("library", name+".yaml"))
	require.NoError(t, err)
	src := strings.Replace(string(raw), "  wire:\n", "  wire:\n    api: "+api+"\n", 1)
	require.NotEqual(t, string(raw), src, "the scenario has expect.wire")
	return scenarios.Parse(name+".yaml", []byte(src))
}

func TestExpectWireAPIIsChecked(t *testing.T) {
	_, err := withWireAPI(t, "cc-truncation-recovery", `{messages: "M:trunc → M:trunc → M:text"}`)
	require.NoError(t, err)
	for api, want := range map[string]string{
		`{telepathy: "M:text"}`:    `expect.wire.api.telepathy: unknown API "telepathy" (known: messages`,
		`{messages: "M:bogus"}`:    `expect.wire.api.messages: entry 1: "M:bogus": unknown answer "bogus"`,
		`{messages: ""}`:           `expect.wire.api.messages: missing: the request sequence of an agent that speaks messages`,
		`{messages: "M:text → ("}`: `expect.wire.api.messages: entry 2`,
	} {
		_, err := withWireAPI(t, "cc-truncation-recovery", api)
		assert.ErrorContains(t, err, want, api)
	}
}

// A foreign agent is judged by expect.wire.api's sequence for the API it
// spoke, when there is one.
func TestAgentJudgedByTheSequenceOfItsAPI(t *testing.T) {
	bin := testAgent(t)
	for _, c := range []struct {
		api  string
		pass bool
	}{
		{`{messages: "M:trunc → M:trunc → M:text"}`, true},
		{`{messages: "M:trunc → M:text"}`, false},
	} {
		s, err := withWireAPI(t, "cc-truncation-recovery", c.api)
		require.NoError(t, err)
		out, err := scenarios.RunAgent(context.Background(), s, scenarios.Agent{Command: bin, Timeout: 30 * time.Second})
		require.NoError(t, err)
		assert.Equal(t, c.pass, out.Passed(), "%s: diff:\n%s", c.api, out.Diff())
		assert.Equal(t, "messages", out.Records[0].API)
	}
}

// An agent is judged by the request sequence of the API it speaks: a
// status the Messages API answers a fault with becomes the one the
// agent's API answers it with, unless expect.wire.api says otherwise.
func TestWireRequestsForEachAPI(t *testing.T) {
	s := libraryScenario(t, "cc-overloaded-gives-up-after-three")
	assert.Equal(t, []string{"M:529", "M:529", "M:529"}, s.WireRequestsFor("messages"))
	for _, api := range fakeapi.APIs() {
		want := api.StatusOf(&loop.RequestError{Kind: loop.KindOverloaded, Status: loop.KindOverloaded.Status()}).HTTP
		assert.Equal(t, []string{"M:" + strconv.Itoa(want), "M:" + strconv.Itoa(want), "M:" + strconv.Itoa(want)},
			s.WireRequestsFor(api.Name()), api.Name())
	}
	assert.Equal(t, []string{"M:529", "M:529", "M:529"}, s.WireRequestsFor("unknown"), "an API not served: as written")

	s, err := withWireAPI(t, "cc-overloaded-gives-up-after-three", `{messages: "M:529 → M:529"}`)
	require.NoError(t, err)
	assert.Equal(t, []string{"M:529", "M:529"}, s.WireRequestsFor("messages"), "expect.wire.api wins")

	r := libraryScenario(t, "cc-truncation-recovery")
	assert.Equal(t, []string{"M:trunc", "max_output_tokens_recovery", "M:trunc", "max_output_tokens_recovery", "M:text"},
		r.WireRequestsFor("messages"), "answers that are not statuses are the same on every API")
}
