package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
)

// Wire is what a run must show on the wire: the request sequence, and
// for a foreign agent run by `simulate agent` what the agent reports.
type Wire struct {
	// Requests is the request sequence in the request notation of docs/profile-claude-code.md (examples),
	// "M:trunc → recovery → M:trunc → recovery → M:text": requests (M
	// main, C compaction, a colon and the answer; a bare M or C takes any
	// answer) with the transitions between them. An entry may be written
	// "entry * n" for n in a row. The loop in process is compared request
	// and transition alike; a foreign agent, whose transitions the wire
	// cannot see, by its requests.
	Requests string `json:"requests"`
	// API gives, by API name (messages, chat, responses, gemini: see
	// fakemodel/fakeapi.APIs), the request sequence of an agent that
	// speaks that API where it must differ from Requests (an API whose
	// wire cannot show an answer the others show). A foreign agent is
	// judged by the sequence of the API its first request used, Requests
	// when that API has none here; the loop in process by Requests.
	API map[string]string `json:"api"`
	// Result is what the agent reports at the end (only `simulate agent`
	// checks it): the subtype of the last {"type":"result"} JSON line of
	// its standard output (Claude Code's stream-json: success,
	// error_max_turns, error_during_execution), else its last line of
	// output.
	Result string `json:"result"`
	// Exit is the agent's exit status (only `simulate agent` checks it).
	Exit *int `json:"exit"`
}

// transitionAliases are the short names docs/profile-claude-code.md uses for transitions.
var transitionAliases = map[string]loop.Transition{
	"recovery": loop.Transition("max_output_tokens_recovery"),
	"escalate": loop.Transition("max_output_tokens_escalate"),
}

// answerWords are the answers a request entry may name besides an HTTP
// status (see the fake server's records, fakemodel/wire.Record).
var answerWords = []string{"text", "tool", "trunc", "empty", "malformed", "stream_error", "drop", "abort", "fault", "rejected", "gone"}

// WireEntry is one entry of a request sequence: a request pattern
// ("M:trunc", "C") or a transition.
type WireEntry struct {
	// Request is "M:answer", "C:answer", "M" or "C"; empty for a
	// transition.
	Request string
	// Transition is a transition's full name; empty for a request.
	Transition loop.Transition
}

// String is the entry as the notation writes it.
func (e WireEntry) String() string {
	if e.Request != "" {
		return e.Request
	}
	return string(e.Transition)
}

// ParseWireRequests reads a request sequence. Entries are separated by →
// or ->; "entry * n" (or × n) stands for n in a row, and so does
// "(entry → entry) * n" for a group.
func ParseWireRequests(s string) ([]WireEntry, error) {
	items := strings.Split(strings.ReplaceAll(s, "->", "→"), "→")
	var out []WireEntry
	for i := 0; i < len(items); i++ {
		raw := strings.TrimSpace(strings.ReplaceAll(items[i], "×", "*"))
		if !strings.HasPrefix(raw, "(") {
			item, n, err := repeated(raw)
			if err != nil {
				return nil, fmt.Errorf("entry %d: %w", i+1, err)
			}
			e, err := parseWireEntry(item)
			if err != nil {
				return nil, fmt.Errorf("entry %d: %w", i+1, err)
			}
			for range n {
				out = append(out, e)
			}
			continue
		}
		// a group: from "(" to the entry holding ")"
		first := i
		var group []WireEntry
		raw = strings.TrimSpace(strings.TrimPrefix(raw, "("))
		for {
			inner, rest, closed := strings.Cut(raw, ")")
			e, err := parseWireEntry(strings.TrimSpace(inner))
			if err != nil {
				return nil, fmt.Errorf("entry %d: %w", i+1, err)
			}
			group = append(group, e)
			if closed {
				rest = strings.TrimSpace(rest)
				n := 1
				if rest != "" {
					_, n, err = repeated("x " + rest)
					if err != nil || !strings.HasPrefix(rest, "*") {
						return nil, fmt.Errorf("entry %d: after a group comes \"* n\", not %q", i+1, rest)
					}
				}
				for range n {
					out = append(out, group...)
				}
				break
			}
			i++
			if i == len(items) {
				return nil, fmt.Errorf("entry %d: the group opened here is not closed with \")\"", first+1)
			}
			raw = strings.TrimSpace(strings.ReplaceAll(items[i], "×", "*"))
		}
	}
	return out, nil
}

// repeated splits "item * n" into item and n (1 without "* n").
func repeated(raw string) (string, int, error) {
	item, times, ok := strings.Cut(raw, "*")
	if !ok {
		return strings.TrimSpace(raw), 1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(times))
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%q: the count after * must be a whole number of 1 or more", raw)
	}
	return strings.TrimSpace(item), n, nil
}

func parseWireEntry(item string) (WireEntry, error) {
	if item == "" {
		return WireEntry{}, fmt.Errorf("empty entry")
	}
	if item == "M" || item == "C" {
		return WireEntry{Request: item}, nil
	}
	if p, answer, ok := strings.Cut(item, ":"); ok && (p == "M" || p == "C") {
		if !knownAnswer(answer) {
			return WireEntry{}, fmt.Errorf("%q: unknown answer %q (known: an HTTP status, %s)", item, answer, strings.Join(answerWords, ", "))
		}
		return WireEntry{Request: item}, nil
	}
	if t, ok := transitionAliases[item]; ok {
		return WireEntry{Transition: t}, nil
	}
	t := loop.Transition(item)
	if !t.Valid() {
		return WireEntry{}, fmt.Errorf("%q is neither a request (M:answer, C:answer) nor a transition (known: recovery, escalate, %s)", item, transitionList())
	}
	return WireEntry{Transition: t}, nil
}

func knownAnswer(a string) bool {
	for _, w := range answerWords {
		if a == w {
			return true
		}
	}
	n, err := strconv.Atoi(a)
	return err == nil && len(a) == 3 && n >= 100 && n <= 599
}

// matchWire lines got up with want: an entry of got that a bare M or C of
// want at the same place matches is written as the pattern, so that a
// comparison shows only real differences.
func matchWire(want []WireEntry, got []string) []string {
	out := make([]string, len(got))
	for i, g := range got {
		out[i] = g
		if i < len(want) && (want[i].Request == "M" || want[i].Request == "C") && strings.HasPrefix(g, want[i].Request+":") {
			out[i] = want[i].Request
		}
	}
	return out
}

// requestEntries is entries without the transitions.
func requestEntries(entries []WireEntry) []WireEntry {
	var out []WireEntry
	for _, e := range entries {
		if e.Request != "" {
			out = append(out, e)
		}
	}
	return out
}

// wantWire is the expected sequence as text entries; withTransitions
// false leaves the transitions out (a foreign agent).
func wantWire(entries []WireEntry, withTransitions bool) []string {
	out := []string{}
	for _, e := range entries {
		if e.Request != "" || withTransitions {
			out = append(out, e.String())
		}
	}
	return out
}

// TraceRequests is a trace's request sequence in the notation of
// [Wire.Requests]: each request with how it was answered, the way the
// fake server labels it (fakemodel/wire.Record.Label), and
// each transition by its full name.
func TraceRequests(t loop.Trace) []string {
	out := []string{}
	var req loop.RequestEvent
	prefix := func() string {
		if req.Purpose == loop.PurposeCompact {
			return "C:"
		}
		return "M:"
	}
	for _, e := range t {
		switch x := e.(type) {
		case loop.RequestEvent:
			req = x
		case loop.ResponseEvent:
			out = append(out, prefix()+responseAnswer(x))
		case loop.RequestFailed:
			out = append(out, prefix()+failureAnswer(x, !req.NonStreaming))
		case loop.TransitionEvent:
			out = append(out, string(x.Transition))
		}
	}
	return out
}

func responseAnswer(r loop.ResponseEvent) string {
	switch {
	case r.StopReason == loop.StopMaxTokens:
		return "trunc"
	case len(r.ToolUses) > 0:
		return "tool"
	case r.Blocks == 0:
		return "empty"
	case r.StopReason == loop.StopToolUse:
		return "malformed"
	}
	return "text"
}

// failureAnswer labels a failed request as the server answers its kind.
func failureAnswer(f loop.RequestFailed, stream bool) string {
	switch f.Kind {
	case loop.KindConnection:
		return "drop"
	case loop.KindStream:
		if stream {
			return "stream_error"
		}
	case "exception":
		return "fault"
	case "aborted":
		return "abort"
	}
	if stream && f.Blocks > 0 {
		return "stream_error"
	}
	status := messages.API{}.StatusOf(&loop.RequestError{Kind: f.Kind, Status: f.Status}).HTTP
	return strconv.Itoa(status)
}

// WireRequestsFor is the request sequence (with its transitions) an agent
// that speaks api must show: expect.wire.api's entry for api when there
// is one, else expect.wire.requests with each error status written as
// the Messages API answers it (M:529) turned into the status api answers
// the same fault with (M:503 for an API that answers overload with 503).
// A status that stands for faults api answers differently, or for no
// fault of its own kind, is kept. nil without expect.wire.
func (s *Scenario) WireRequestsFor(api string) []string {
	if s.Expect.Wire == nil {
		return nil
	}
	return wantWire(s.wireEntriesFor(api), true)
}

// wireEntriesFor is [Scenario.WireRequestsFor] as entries.
func (s *Scenario) wireEntriesFor(api string) []WireEntry {
	if entries, ok := s.wireByAPI[api]; ok {
		return entries
	}
	target := apiByName(api)
	if target == nil {
		return s.wire
	}
	out := make([]WireEntry, len(s.wire))
	for i, e := range s.wire {
		out[i] = e
		p, answer, ok := strings.Cut(e.Request, ":")
		if !ok {
			continue
		}
		if status, err := strconv.Atoi(answer); err == nil {
			if to, ok := statusOn(target, status); ok {
				out[i].Request = p + ":" + strconv.Itoa(to)
			}
		}
	}
	return out
}

// AnswerOn is a request's answer in the loop's notation (TraceRequests:
// "529", "text") as the API named api writes it on the wire ("503" for
// an overload on the Responses API): a status is turned as
// [Scenario.WireRequestsFor] turns it; anything else, and any answer for
// an API it does not know, is kept.
func AnswerOn(api, answer string) string {
	target := apiByName(api)
	status, err := strconv.Atoi(answer)
	if target == nil || err != nil {
		return answer
	}
	if to, ok := statusOn(target, status); ok {
		return strconv.Itoa(to)
	}
	return answer
}

// statusOn is the status api answers the faults the Messages API answers
// with status (the fault kinds whose own status it is, and the kinds
// with none of their own that the Messages API answers with it), when
// api answers them all alike.
func statusOn(api wire.API, status int) (int, bool) {
	to, found := 0, false
	for _, k := range loop.ErrorKinds {
		re := &loop.RequestError{Kind: k, Status: k.Status()}
		if k == loop.KindConnection || k == loop.KindStream || k == loop.KindOther ||
			(messages.API{}).StatusOf(re).HTTP != status {
			continue
		}
		got := api.StatusOf(re).HTTP
		if found && got != to {
			return 0, false
		}
		to, found = got, true
	}
	return to, found
}

// apiByName is the API of fakeapi.APIs called name, nil when none is.
func apiByName(name string) wire.API {
	for _, api := range fakeapi.APIs() {
		if api.Name() == name {
			return api
		}
	}
	return nil
}
