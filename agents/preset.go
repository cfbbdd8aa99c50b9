package agents

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/scenarios"
)

// PromptVar is the variable holding the scenario's prompt
// (scenarios.RunAgent sets it); a preset's command passes it to the
// agent as its prompt argument.
const PromptVar = "LOOPSIM_PROMPT"

// Preset is how to run one released agent headless against the fake
// server.
type Preset struct {
	// Name names the preset (`--preset NAME`).
	Name string
	// Package is the npm package the agent is released as.
	Package string
	// Version is the released version the preset was settled against.
	Version string
	// Binary is the command's name, looked up on PATH unless a path is
	// given.
	Binary string
	// API is the wire API the agent speaks through the preset (a name of
	// fakeapi.APIs: messages, chat, responses, gemini).
	API string
	// Model is the model the agent is told to use; the server answers any
	// name.
	Model string
	// Args are the agent's arguments; [PromptVar] stands for the prompt.
	Args []string
	// Env are variables the agent needs besides every API's base URL and
	// key; {home} stands for the temporary home.
	Env []string
	// Files are the config files written into the temporary home before
	// each run.
	Files []File
}

// File is a config file of a preset.
type File struct {
	// Path is where it goes, relative to the temporary home.
	Path string
	// Content is its text; {base} stands for the server's base URL
	// (http://127.0.0.1:PORT), {v1} for it followed by /v1.
	Content string
}

// Presets are the presets, by name.
func Presets() []Preset { return slices.Clone(presets) }

// Names are the presets' names, in order.
func Names() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	return out
}

// Lookup is the preset named name.
func Lookup(name string) (Preset, error) {
	for _, p := range presets {
		if p.Name == name {
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("agents: no preset %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Find is the path of the preset's binary: cmd when it is given, else
// Binary looked up on PATH.
func (p Preset) Find(cmd string) (string, error) {
	if cmd != "" {
		return cmd, nil
	}
	path, err := exec.LookPath(p.Binary)
	if err != nil {
		return "", fmt.Errorf("agents: preset %s: %s (%s %s) not found on PATH; install it or give its path with --cmd", p.Name, p.Binary, p.Package, p.Version)
	}
	return path, nil
}

// Command is the shell command that runs the agent at bin: its
// arguments quoted, the prompt taken from [PromptVar].
func (p Preset) Command(bin string) string {
	words := []string{shellQuote(bin)}
	for _, a := range p.Args {
		if a == PromptVar {
			words = append(words, `"$`+PromptVar+`"`)
			continue
		}
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// Workspace makes a fresh temporary home (holding the preset's config
// files, written for the server at baseURL) and working folder for one
// run.
func (p Preset) Workspace(baseURL string) (scenarios.AgentWorkspace, error) {
	tmp, err := os.MkdirTemp("", "loopsim-"+p.Name+"-")
	if err != nil {
		return scenarios.AgentWorkspace{}, fmt.Errorf("agents: preset %s: %w", p.Name, err)
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	home, work := filepath.Join(tmp, "home"), filepath.Join(tmp, "work")
	if err := p.write(home, work, baseURL); err != nil {
		cleanup()
		return scenarios.AgentWorkspace{}, err
	}
	return scenarios.AgentWorkspace{Env: p.Environ(home), Dir: work, Cleanup: cleanup}, nil
}

// write makes home with the config files and work with one small file.
func (p Preset) write(home, work, baseURL string) error {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("agents: preset %s: %w", p.Name, err)
	}
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		return fmt.Errorf("agents: preset %s: %w", p.Name, err)
	}
	for _, f := range p.Files {
		path := filepath.Join(home, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("agents: preset %s: %w", p.Name, err)
		}
		if err := os.WriteFile(path, []byte(f.Render(baseURL)), 0o600); err != nil {
			return fmt.Errorf("agents: preset %s: %w", p.Name, err)
		}
	}
	return nil
}

// Environ is the preset's variables for a run whose home is home:
// HOME, then Env.
func (p Preset) Environ(home string) []string {
	env := []string{"HOME=" + home}
	for _, e := range p.Env {
		env = append(env, strings.ReplaceAll(e, "{home}", home))
	}
	return env
}

// Render is the file's content for the server at baseURL.
func (f File) Render(baseURL string) string {
	base := strings.TrimRight(baseURL, "/")
	return strings.NewReplacer("{base}", base, "{v1}", base+"/v1").Replace(f.Content)
}

// Agent is the preset as a scenarios.Agent running the binary at bin
// (see [Preset.Find]), each run in a fresh workspace.
func (p Preset) Agent(bin string) scenarios.Agent {
	return scenarios.Agent{Command: p.Command(bin), Prepare: p.Workspace}
}

// shellQuote quotes s for sh when it holds anything but plain word
// characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
