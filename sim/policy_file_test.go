package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// A policy file is a built-in profile with the fields it names changed, in
// the order written, under the file's name.
func TestParsePolicyFile(t *testing.T) {
	p, err := ParsePolicyFile([]byte(`{"name": " my-agent ", "profile": "codex",
		"policy": {"api_retries": 3, "stream_retries": 0, "backoff_jitter": 0.5, "reactive_compact": true,
		"api_error_terminal": "completed", "reactive_only_models": ["m1", "m2"], "auto_compact_buffer": "20_000"}}`))
	require.NoError(t, err)
	want := loop.Codex()
	want.Name = "my-agent"
	want.APIRetries, want.StreamRetries, want.BackoffJitter, want.ReactiveCompact = 3, 0, 0.5, true
	want.APIErrorTerminal, want.ReactiveOnlyModels, want.AutoCompactBuffer = loop.Completed, []string{"m1", "m2"}, 20_000
	assert.Equal(t, want, p)

	p, err = ParsePolicyFile([]byte(`{"name": "plain", "profile": "seed"}`))
	require.NoError(t, err)
	want = loop.Seed()
	want.Name = "plain"
	assert.Equal(t, want, p, "no policy: the profile as it is")

	// the order written: collapse_commit_percent must stay at least
	// collapse_stage_percent (80 in the seed) after every field
	_, err = ParsePolicyFile([]byte(`{"name": "x", "profile": "seed", "policy": {"collapse_stage_percent": 95, "collapse_commit_percent": 96}}`))
	require.Error(t, err)
	p, err = ParsePolicyFile([]byte(`{"name": "x", "profile": "seed", "policy": {"collapse_commit_percent": 96, "collapse_stage_percent": 95}}`))
	require.NoError(t, err)
	assert.Equal(t, 95, p.CollapseStagePercent)
}

// A bad policy file is refused naming what is wrong.
func TestParsePolicyFileRefuses(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{``, "want {"},
		{`[]`, "want {"},
		{`{"name": "x", "profile": "seed", "extra": 1}`, `unknown field "extra"`},
		{`{"name": "x", "profile": "seed"} {}`, "more than one JSON value"},
		{`{"profile": "seed"}`, "name: missing"},
		{`{"name": "  ", "profile": "seed"}`, "name: missing"},
		{`{"name": "x"}`, "profile: missing: the built-in profile it starts from (seed, claude-code, codex"},
		{`{"name": "x", "profile": "nope"}`, `profile: unknown profile "nope"`},
		{`{"name": "x", "profile": "seed", "policy": [1]}`, "policy: want an object"},
		{`{"name": "x", "profile": "seed", "policy": {"nope": 1}}`, `policy: policy has no field "nope"`},
		{`{"name": "x", "profile": "seed", "policy": {"api_retries": 1000}}`, "policy: policy field api_retries = 1000: allowed [0, 100]"},
		{`{"name": "x", "profile": "seed", "policy": {"api_retries": 1, "api_retries": 2}}`, "policy: api_retries: given twice"},
		{`{"name": "x", "profile": "seed", "policy": {"api_retries": null}}`, "policy: api_retries: want a number, true or false, a string or a list of strings, not null"},
		{`{"name": "x", "profile": "seed", "policy": {"api_retries": {}}}`, "not an object"},
		{`{"name": "x", "profile": "seed", "policy": {"reactive_only_models": ["a", 1]}}`, "policy: reactive_only_models: item 1 is not a string"},
		{`{"name": "x", "profile": "seed", "policy": {"name": "y"}}`, "policy: policy field name is the profile's name"},
	} {
		_, err := ParsePolicyFile([]byte(tt.file))
		if assert.Error(t, err, tt.file) {
			assert.Contains(t, err.Error(), tt.want, tt.file)
		}
	}
}

// A -profile entry ending in .json is a policy file: its setting goes by
// the file's name, replays by the file's path, and a missing or bad file
// is an error naming it.
func TestNewSettingReadsAPolicyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"name": "my-agent", "profile": "claude-code", "policy": {"api_retries": 3}}`), 0o644))
	s, err := NewSetting(path)
	require.NoError(t, err)
	assert.Equal(t, "my-agent", s.Name)
	assert.Equal(t, "my-agent", s.Profile())
	assert.Equal(t, path, s.PolicyFile)
	assert.Equal(t, 3, s.Policy.APIRetries)
	assert.Equal(t, "-profile "+path, s.ReplayFlags())
	s, err = s.With("max_turns", "4")
	require.NoError(t, err)
	assert.Equal(t, "my-agent max_turns=4", s.Name)
	assert.Equal(t, "-profile "+path+" -set max_turns=4", s.ReplayFlags())

	b, err := NewSetting("codex")
	require.NoError(t, err)
	assert.Empty(t, b.PolicyFile)
	assert.Equal(t, "-profile codex", b.ReplayFlags())

	_, err = NewSetting(filepath.Join(dir, "missing.json"))
	require.ErrorContains(t, err, "policy file: open "+filepath.Join(dir, "missing.json"))
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"name": "x", "profile": "seed", "policy": {"api_retries": -1}}`), 0o644))
	_, err = NewSetting(bad)
	require.ErrorContains(t, err, "policy file "+bad+": policy: policy field api_retries = -1")
}

// The policies table lists the fields the settings differ in, in field
// order, zero switches by their meaning, lists joined; one setting, or
// settings that do not differ, give none.
func TestPolicyDifferences(t *testing.T) {
	a, b := mustSetting(t, "seed"), mustSetting(t, "seed", "stop_hook_block_cap=4", "api_retries=2")
	assert.Empty(t, PolicyDifferences([]Setting{a}))
	assert.Empty(t, PolicyDifferences([]Setting{a, a}))
	assert.Equal(t, []PolicyRow{
		{Field: "stop_hook_block_cap", Values: []string{"off", "4"}},
		{Field: "api_retries", Values: []string{"0", "2"}},
	}, PolicyDifferences([]Setting{a, b}))
	c := mustSetting(t, "claude-code")
	rows := PolicyDifferences([]Setting{a, c})
	var models []string
	for _, r := range rows {
		if r.Field == "reactive_only_models" {
			models = r.Values
		}
	}
	assert.Equal(t, []string{"none", "claude-sonnet-4-5,claude-haiku-4-5"}, models)
}
