package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrokenFiles loads every file of testdata/broken: each must be
// refused with exactly the message in its .err file (rewritten with
// -update), and every problem but a whole-file one must carry a line.
func TestBrokenFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/broken/*.yaml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 150, "broken files")
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			_, err := LoadFile(f)
			require.Error(t, err, "%s loaded without error", f)
			var list ErrorList
			require.ErrorAs(t, err, &list)
			require.NotEmpty(t, list, "want a non-empty ErrorList: %v", err)
			for _, e := range list {
				assert.Equal(t, f, e.File, "the file a problem names")
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			got := err.Error() + "\n"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, rerr := os.ReadFile(golden)
			require.NoError(t, rerr, "no expected message (run go test ./scenarios/... -update)")
			assert.Equal(t, string(want), got, "message differs from %s", golden)
		})
	}
}

// TestBrokenFilesArePositioned: a problem inside the document names
// line and column; only whole-file problems (empty, syntax) may not.
func TestBrokenFilesArePositioned(t *testing.T) {
	fileLevel := map[string]bool{"empty": true, "syntax-error": true}
	files, _ := filepath.Glob("testdata/broken/*.yaml")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		_, err := LoadFile(f)
		var list ErrorList
		require.ErrorAs(t, err, &list, f)
		for _, e := range list {
			if !fileLevel[name] {
				assert.True(t, e.Line != 0 && e.Column != 0, "%s: problem without line and column: %v", f, e)
			}
		}
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	src := `name: x
description: d
profile: seed
conversation:
  - {role: user, text: hi, tokens: -1}
script:
  - {text: hello, output_tokens: lots}
expect: {terminal: completed, transitions: [], colour: red}
`
	_, err := Parse("many.yaml", []byte(src))
	var list ErrorList
	require.ErrorAs(t, err, &list)
	want := []string{
		"many.yaml:5:36: conversation[0].tokens: -1 is negative: every number in a scenario is zero or more",
		`many.yaml:7:34: script[0].output_tokens: want a whole number, got the string "lots"`,
		"many.yaml:8:48: expect.colour: unknown field (known here: terminal, halted, transitions, counters, violated, wire, loop_only)",
	}
	require.Len(t, list, len(want), "problems:\n%v", err)
	for i, w := range want {
		assert.Equal(t, w, list[i].Error(), "problem %d", i)
	}
}

// A scalar reads by internal/field's rule, as every -set: a boolean in
// any case (YAML's True and TRUE are true, never a silent false), or
// on/off, 1/0; a whole number in decimal (010 is ten, not YAML's octal
// eight), its digits grouped by _.
func TestScalarsReadByTheFieldRule(t *testing.T) {
	for _, c := range []struct {
		name   string
		meta   string
		tokens string
		want   Message
	}{
		{name: "lower case", meta: "true", tokens: "7", want: Message{Meta: true, Tokens: 7}},
		{name: "capitalised", meta: "True", tokens: "7", want: Message{Meta: true, Tokens: 7}},
		{name: "upper case", meta: "TRUE", tokens: "7", want: Message{Meta: true, Tokens: 7}},
		{name: "false upper case", meta: "FALSE", tokens: "7", want: Message{Meta: false, Tokens: 7}},
		{name: "on", meta: "on", tokens: "7", want: Message{Meta: true, Tokens: 7}},
		{name: "one", meta: "1", tokens: "7", want: Message{Meta: true, Tokens: 7}},
		{name: "off", meta: "off", tokens: "7", want: Message{Meta: false, Tokens: 7}},
		{name: "a leading zero is decimal", meta: "false", tokens: "010", want: Message{Tokens: 10}},
		{name: "grouped digits", meta: "false", tokens: "20_000", want: Message{Tokens: 20_000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "name: x\ndescription: d\nprofile: seed\n" +
				"conversation: [{role: user, text: hi, meta: " + c.meta + ", tokens: " + c.tokens + "}]\n" +
				"script: [{text: hello}]\nexpect: {terminal: completed, transitions: []}\n"
			s, err := Parse("scalars.yaml", []byte(src))
			require.NoError(t, err)
			got := s.Conversation[0]
			assert.Equal(t, c.want, Message{Meta: got.Meta, Tokens: got.Tokens})
		})
	}
}

func TestParseBoundsTheFileSize(t *testing.T) {
	_, err := Parse("big.yaml", make([]byte, MaxFileSize+1))
	require.ErrorContains(t, err, "larger than", "want a size error")
}

func TestParseResolvesDefaultsAndPolicy(t *testing.T) {
	src := `name: x
description: d
profile: claude-code
policy: {max_turns: 4, reactive_only_models: [a, b]}
fallback_model: {name: small}
conversation: [{role: user, text: hi}]
script: [{text: hello}]
tools: {by_name: {Write: {}, Read: {}}}
expect: {terminal: completed, transitions: []}
`
	s, err := Parse("ok.yaml", []byte(src))
	require.NoError(t, err)
	p := s.ResolvedPolicy()
	assert.Equal(t, "claude-code", p.Name, "policy not resolved: name")
	assert.Equal(t, 4, p.MaxTurns, "policy not resolved: max_turns")
	assert.Equal(t, "a,b", strings.Join(p.ReactiveOnlyModels, ","), "policy not resolved: reactive_only_models")
	assert.Equal(t, DefaultModel, s.Model, "model: want the default")
	f := s.FallbackModel
	assert.Equal(t, DefaultModel.ContextWindow, f.ContextWindow, "fallback model %+v did not take the main model's sizes", f)
	assert.Equal(t, DefaultModel.MaxOutputTokens, f.MaxOutputTokens, "fallback model %+v did not take the main model's sizes", f)
	assert.Equal(t, "Read,Write", strings.Join(s.toolNames(), ","), "tool names: want the by_name keys sorted")
}

func TestLoadNamesEveryBadFileAndKeepsTheGoodOnes(t *testing.T) {
	list, err := Load("library/seed-next-turn.yaml", "testdata/broken/missing-name.yaml", "testdata/broken/unknown-role.yaml", "no/such/file.yaml")
	if assert.Len(t, list, 1, "want seed-next-turn alone") {
		assert.Equal(t, "seed-next-turn", list[0].Name, "want seed-next-turn alone")
	}
	var errs ErrorList
	require.ErrorAs(t, err, &errs)
	for _, f := range []string{"missing-name.yaml", "unknown-role.yaml", "no/such/file.yaml"} {
		assert.ErrorContains(t, err, f, "the error names every bad file")
	}
}

func TestLoadRefusesTwoScenariosWithOneName(t *testing.T) {
	_, err := Load("library/seed-next-turn.yaml", "library/seed-next-turn.yaml")
	require.ErrorContains(t, err, `name: "seed-next-turn" is also the name of library/seed-next-turn.yaml`, "want a repeated-name error")
}

func TestLoadDirectory(t *testing.T) {
	list, err := Load("library")
	require.NoError(t, err)
	lib := loadLibrary(t)
	assert.Len(t, list, len(lib), "Load(library) against the embedded library")
}

func TestTransitionEntries(t *testing.T) {
	for _, c := range []struct {
		entry string
		n     int
		ok    bool
	}{
		{"next_turn", 1, true},
		{"stop_hook_blocking * 8", 8, true},
		{"stop_hook_blocking*2", 2, true},
		{"next_turn * 0", 0, false},
		{"next_turn * x", 0, false},
		{"next", 0, false},
	} {
		_, n, err := parseTransitionEntry(c.entry)
		if !c.ok {
			assert.Error(t, err, "parseTransitionEntry(%q)", c.entry)
		} else if assert.NoError(t, err, "parseTransitionEntry(%q)", c.entry) {
			assert.Equal(t, c.n, n, "parseTransitionEntry(%q)", c.entry)
		}
	}
}
