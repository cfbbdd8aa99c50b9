package agents

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/: the presets', and the incident fixtures' re-judged rules and verdicts")

// testBase is the server URL the goldens are rendered for.
const testBase = "http://127.0.0.1:PORT"

// TestPresetGolden pins what each preset runs: its command line, the
// variables it adds and the config files it writes for a server, as a
// run sees them (the files read back from a real workspace).
func TestPresetGolden(t *testing.T) {
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			ws, err := p.Workspace(testBase)
			require.NoError(t, err)
			defer ws.Cleanup()
			home := strings.TrimPrefix(ws.Env[0], "HOME=")
			require.DirExists(t, home)
			require.FileExists(t, filepath.Join(ws.Dir, "notes.txt"))
			var b strings.Builder
			b.WriteString("# preset " + p.Name + ": " + p.Package + " " + p.Version + ", API " + p.API + ", model " + p.Model + "\n")
			b.WriteString("command: " + p.Command("/path/to/"+p.Binary) + "\n")
			for _, e := range ws.Env {
				b.WriteString("env: " + strings.ReplaceAll(e, home, "$HOME") + "\n")
			}
			for _, f := range p.Files {
				data, err := os.ReadFile(filepath.Join(home, f.Path))
				require.NoError(t, err)
				b.WriteString("file $HOME/" + f.Path + ":\n" + string(data))
			}
			golden := filepath.Join("testdata", p.Name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./agents -update writes it")
			assert.Equal(t, string(want), b.String())
			ws.Cleanup()
			assert.NoDirExists(t, filepath.Dir(home), "Cleanup removes the workspace")
		})
	}
}

// TestPresetsComplete: every preset names what a run needs.
func TestPresetsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Presets() {
		assert.False(t, seen[p.Name], "preset %s twice", p.Name)
		seen[p.Name] = true
		for name, v := range map[string]string{"Package": p.Package, "Version": p.Version, "Binary": p.Binary, "API": p.API, "Model": p.Model} {
			assert.NotEmpty(t, v, "preset %s: %s", p.Name, name)
		}
		assert.Contains(t, p.Args, PromptVar, "preset %s passes the prompt", p.Name)
		assert.Contains(t, p.Command("b"), `"$LOOPSIM_PROMPT"`, "preset %s", p.Name)
	}
	assert.Equal(t, []string{"claude-code", "codex", "gemini-cli", "qwen-code", "opencode"}, Names())
}

func TestLookup(t *testing.T) {
	p, err := Lookup("codex")
	require.NoError(t, err)
	assert.Equal(t, "responses", p.API)
	_, err = Lookup("nope")
	assert.ErrorContains(t, err, `no preset "nope" (known: claude-code, codex, gemini-cli, qwen-code, opencode)`)
}

func TestFind(t *testing.T) {
	p, err := Lookup("codex")
	require.NoError(t, err)
	got, err := p.Find("/opt/x/codex")
	require.NoError(t, err)
	assert.Equal(t, "/opt/x/codex", got, "--cmd wins")
	t.Setenv("PATH", t.TempDir())
	_, err = p.Find("")
	assert.ErrorContains(t, err, "codex (@openai/codex 0.169.0) not found on PATH")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "codex"), []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("PATH", dir)
	got, err = p.Find("")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "codex"), got)
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "-m": "-m", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$X": "'$X'"} {
		assert.Equal(t, want, shellQuote(in), "%q", in)
	}
}
