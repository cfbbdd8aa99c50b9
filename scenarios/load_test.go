package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokenFiles loads every file of testdata/broken: each must be
// refused with exactly the message in its .err file (rewritten with
// -update), and every problem but a whole-file one must carry a line.
func TestBrokenFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/broken/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 150 {
		t.Fatalf("%d broken files, want at least 150", len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			_, err := LoadFile(f)
			if err == nil {
				t.Fatalf("%s loaded without error", f)
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is %T, want a non-empty ErrorList: %v", err, err)
			}
			for _, e := range list {
				if e.File != f {
					t.Errorf("problem names file %q, want %q", e.File, f)
				}
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			got := err.Error() + "\n"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, rerr := os.ReadFile(golden)
			if rerr != nil {
				t.Fatalf("no expected message (run go test ./scenarios/... -update): %v", rerr)
			}
			if got != string(want) {
				t.Errorf("message differs from %s:\n got: %s\nwant: %s", golden, got, want)
			}
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
		if !errors.As(err, &list) {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range list {
			if !fileLevel[name] && (e.Line == 0 || e.Column == 0) {
				t.Errorf("%s: problem without line and column: %v", f, e)
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
	if !errors.As(err, &list) {
		t.Fatalf("got %v, want an ErrorList", err)
	}
	want := []string{
		"many.yaml:5:36: conversation[0].tokens: -1 is negative: every number in a scenario is zero or more",
		`many.yaml:7:34: script[0].output_tokens: want a whole number, got the string "lots"`,
		"many.yaml:8:48: expect.colour: unknown field (known here: terminal, halted, transitions, counters, violated, wire)",
	}
	if len(list) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(list), len(want), err)
	}
	for i, w := range want {
		if got := list[i].Error(); got != w {
			t.Errorf("problem %d:\n got %s\nwant %s", i, got, w)
		}
	}
}

func TestParseBoundsTheFileSize(t *testing.T) {
	_, err := Parse("big.yaml", make([]byte, MaxFileSize+1))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("got %v, want a size error", err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	p := s.ResolvedPolicy()
	if p.Name != "claude-code" || p.MaxTurns != 4 || strings.Join(p.ReactiveOnlyModels, ",") != "a,b" {
		t.Errorf("policy not resolved: name %q, max_turns %d, reactive_only_models %v", p.Name, p.MaxTurns, p.ReactiveOnlyModels)
	}
	if s.Model != DefaultModel {
		t.Errorf("model %+v, want the default %+v", s.Model, DefaultModel)
	}
	if f := s.FallbackModel; f.ContextWindow != DefaultModel.ContextWindow || f.MaxOutputTokens != DefaultModel.MaxOutputTokens {
		t.Errorf("fallback model %+v did not take the main model's sizes", f)
	}
	if got := strings.Join(s.toolNames(), ","); got != "Read,Write" {
		t.Errorf("tool names %q, want the by_name keys sorted", got)
	}
}

func TestLoadNamesEveryBadFileAndKeepsTheGoodOnes(t *testing.T) {
	list, err := Load("library/seed-next-turn.yaml", "testdata/broken/missing-name.yaml", "testdata/broken/unknown-role.yaml", "no/such/file.yaml")
	if len(list) != 1 || list[0].Name != "seed-next-turn" {
		t.Errorf("loaded %d scenarios, want seed-next-turn alone", len(list))
	}
	var errs ErrorList
	if !errors.As(err, &errs) {
		t.Fatalf("got %v, want an ErrorList", err)
	}
	for _, f := range []string{"missing-name.yaml", "unknown-role.yaml", "no/such/file.yaml"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error does not name %s:\n%v", f, err)
		}
	}
}

func TestLoadRefusesTwoScenariosWithOneName(t *testing.T) {
	_, err := Load("library/seed-next-turn.yaml", "library/seed-next-turn.yaml")
	if err == nil || !strings.Contains(err.Error(), `name: "seed-next-turn" is also the name of library/seed-next-turn.yaml`) {
		t.Fatalf("got %v, want a repeated-name error", err)
	}
}

func TestLoadDirectory(t *testing.T) {
	list, err := Load("library")
	if err != nil {
		t.Fatal(err)
	}
	lib := loadLibrary(t)
	if len(list) != len(lib) {
		t.Errorf("Load(library) gave %d scenarios, the embedded library %d", len(list), len(lib))
	}
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
		if (err == nil) != c.ok || (c.ok && n != c.n) {
			t.Errorf("parseTransitionEntry(%q) = %d, %v; want %d, ok %t", c.entry, n, err, c.n, c.ok)
		}
	}
}
