package transcript

import (
	"regexp"
	"slices"
	"strings"
)

// Format is a session log's format.
type Format string

// The formats read.
const (
	ClaudeCode Format = "claude-code"
	Codex      Format = "codex"
)

// Usage is what one API call consumed, as its log reports it.
type Usage struct {
	// Input is uncached input.
	Input int `json:"input"`
	// CacheWrite is input written to the prompt cache.
	CacheWrite int `json:"cache_write"`
	// CacheRead is input read from the prompt cache.
	CacheRead int `json:"cache_read"`
	// Output is output (a lower bound in Claude Code logs, whose figure is
	// often a streaming snapshot).
	Output int `json:"output"`
	// Reasoning is the part of Output that was reasoning the next call
	// does not carry in its context (Codex logs it; 0 where not logged).
	Reasoning int `json:"reasoning,omitempty"`
}

// Context is the call's context: all of its input.
func (u Usage) Context() int { return u.Input + u.CacheWrite + u.CacheRead }

// Call is one successful API call of the session's main conversation.
type Call struct {
	// Model is the model that answered, normalized by [ModelName].
	Model string `json:"model"`
	// Usage is the call's usage; Usage.Context() is its context.
	Usage Usage `json:"usage"`
	// Tools counts the tool calls in the reply.
	Tools int `json:"tools"`
	// Rereads counts the tool calls that read a file already read earlier
	// in the session (Claude Code's Read tool); 0 where inputs are not
	// logged.
	Rereads int `json:"rereads"`
}

// Compaction is a compaction of the conversation.
type Compaction struct {
	// Auto is set for an automatic compaction, unset for a manual one.
	Auto bool `json:"auto"`
	// PreTokens is the context the compaction started from, as logged (0
	// when the log does not say).
	PreTokens int `json:"pre_tokens"`
}

// EventKind says what an [Event] is.
type EventKind int

// The kinds of event in a session.
const (
	EventCall EventKind = iota
	EventCompaction
	EventPrompt
)

// Event is one thing that happened in the session, in log order.
type Event struct {
	Kind       EventKind  `json:"kind"`
	Call       Call       `json:"call,omitzero"`
	Compaction Compaction `json:"compaction,omitzero"`
}

// Injected is a kind of user line the agent injected: not a prompt the
// user typed.
type Injected int

// The kinds of injected user line.
const (
	// TaskNotification is a background task's notification
	// (<task-notification>).
	TaskNotification Injected = iota
	// HookOutput is a hook's output fed back as a user line.
	HookOutput
	// CommandEcho is a slash command, its arguments or its local output
	// echoed into the conversation (<command-name>, <local-command-stdout>,
	// <local-command-caveat>, <bash-input>, <bash-stdout>...).
	CommandEcho
	// Interruption is the note left when the user interrupted a request.
	Interruption
	// Meta is a line the agent marked as meta (isMeta), or a Codex
	// environment-context message.
	Meta

	numInjected
)

var injectedNames = [numInjected]string{"task notification", "hook output", "command echo", "interruption note", "meta line"}

// String is the kind's name.
func (k Injected) String() string { return injectedNames[k] }

// InjectedKinds lists every kind, in order.
func InjectedKinds() []Injected {
	out := make([]Injected, numInjected)
	for i := range out {
		out[i] = Injected(i)
	}
	return out
}

// Session is one session log, normalized.
type Session struct {
	// Name names the log (its path, when read from a file).
	Name string `json:"name"`
	// Format is the log's format; empty when no line was recognized.
	Format Format `json:"format,omitempty"`
	// Window is the model's context window when the log says (Codex).
	Window int `json:"window,omitempty"`
	// Events are the calls, compactions and user prompts, in order.
	Events []Event `json:"events"`
	// Lines counts the log's lines; Malformed those that are not JSON;
	// Foreign those that are JSON but of no known kind; Sidechain the
	// lines of subagents, skipped.
	Lines, Malformed, Foreign, Sidechain int
	// FirstBad is the number of the first malformed or foreign line (0:
	// none), for the report.
	FirstBad int
	// Injected counts the injected user lines by kind.
	Injected [numInjected]int
}

// Calls returns the session's calls in order.
func (s *Session) Calls() []Call {
	var out []Call
	for _, e := range s.Events {
		if e.Kind == EventCall {
			out = append(out, e.Call)
		}
	}
	return out
}

// Model is the model that answered most of the session's calls (the
// first such in order on a tie); empty when there are none.
func (s *Session) Model() string {
	var names []string
	count := map[string]int{}
	for _, e := range s.Events {
		if e.Kind == EventCall {
			if count[e.Call.Model] == 0 {
				names = append(names, e.Call.Model)
			}
			count[e.Call.Model]++
		}
	}
	best := ""
	for _, n := range names {
		if best == "" || count[n] > count[best] {
			best = n
		}
	}
	return best
}

func (s *Session) bad(n int, foreign bool) {
	if foreign {
		s.Foreign++
	} else {
		s.Malformed++
	}
	if s.FirstBad == 0 {
		s.FirstBad = n
	}
}

// dated matches a trailing release date (claude-sonnet-4-20250514).
var dated = regexp.MustCompile(`-\d{8}$`)

// ModelName normalizes a model name as logs spell it: lower case, any
// release date suffix removed ("claude-opus-4-5-20251101" is
// "claude-opus-4-5").
func ModelName(s string) string {
	return dated.ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "")
}

// injectedPrefixes tell injected user text from typed prompts, by the
// tags the agents wrap it in.
var injectedPrefixes = []struct {
	prefix string
	kind   Injected
}{
	{"<task-notification>", TaskNotification},
	{"<user-prompt-submit-hook>", HookOutput},
	{"<hook-output>", HookOutput},
	{"stop hook feedback:", HookOutput},
	{"<command-name>", CommandEcho},
	{"<command-message>", CommandEcho},
	{"<command-args>", CommandEcho},
	{"<local-command-stdout>", CommandEcho},
	{"<local-command-stderr>", CommandEcho},
	{"<local-command-caveat>", CommandEcho},
	{"<bash-input>", CommandEcho},
	{"<bash-stdout>", CommandEcho},
	{"<bash-stderr>", CommandEcho},
	{"[request interrupted by user", Interruption},
	{"<environment_context>", Meta},
	{"<user_instructions>", Meta},
	{"# agents.md instructions", Meta},
	{"<system-reminder>", Meta},
}

// Classify tells whether a user line's text is injected and of which
// kind; ok is false for a prompt the user typed.
func Classify(text string) (kind Injected, ok bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	i := slices.IndexFunc(injectedPrefixes, func(p struct {
		prefix string
		kind   Injected
	}) bool {
		return strings.HasPrefix(t, p.prefix)
	})
	if i < 0 {
		return 0, false
	}
	return injectedPrefixes[i].kind, true
}
