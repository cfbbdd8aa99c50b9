package properties

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// FormatStep writes a script step on one line, naming only what is set:
// "reply(text, tools=Read+Edit, in=167001)", "truncated(text) x3",
// "if max_tokens > 8000 then truncated(text) else reply(text)",
// "reply(text) forever".
func FormatStep(s fakemodel.Step) string {
	var b strings.Builder
	if s.If != nil {
		fmt.Fprintf(&b, "if %s then %s else %s", s.If, FormatStep(*s.Then), FormatStep(*s.Else))
	} else {
		kind := s.Kind
		if kind == "" {
			kind = fakemodel.Reply
		}
		var parts []string
		add := func(ok bool, format string, args ...any) {
			if ok {
				parts = append(parts, fmt.Sprintf(format, args...))
			}
		}
		add(s.Thinking != "", "thinking")
		add(s.Text != "", "text")
		if len(s.ToolUses) > 0 {
			names := make([]string, len(s.ToolUses))
			for i, u := range s.ToolUses {
				names[i] = u.Name
			}
			parts = append(parts, "tools="+strings.Join(names, "+"))
		}
		add(s.Stop != "", "stop=%s", s.Stop)
		add(s.InputTokens != 0, "in=%d", s.InputTokens)
		add(s.OutputTokens != 0, "out=%d", s.OutputTokens)
		add(s.Maximum != 0, "max=%d", s.Maximum)
		add(s.Status != 0, "status=%d", s.Status)
		add(s.RetryAfterMS != 0, "retry_after=%dms", s.RetryAfterMS)
		add(s.After != 0, "after=%d", s.After)
		b.WriteString(string(kind))
		if len(parts) > 0 {
			b.WriteString("(" + strings.Join(parts, ", ") + ")")
		}
	}
	switch {
	case s.Repeat == fakemodel.Forever:
		b.WriteString(" forever")
	case s.Repeat > 1:
		fmt.Fprintf(&b, " x%d", s.Repeat)
	}
	return b.String()
}

// FormatScript writes a script one step a line, numbered from 1.
func FormatScript(script []fakemodel.Step) string {
	var b strings.Builder
	for i, s := range script {
		fmt.Fprintf(&b, "%2d. %s\n", i+1, FormatStep(s))
	}
	return b.String()
}

// String describes the case for a reader: the policy (as its profile and
// the fields that differ from it), the models, the script and every fake
// that is not at its default.
func (c Case) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s", c.Policy.Name)
	if d := PolicyDiff(c.Policy); len(d) > 0 {
		fmt.Fprintf(&b, " with %s", strings.Join(d, ", "))
	}
	fmt.Fprintf(&b, "\nprimary %s (window %d, max output %d)", c.Primary.Name, c.Primary.ContextWindow, c.Primary.MaxOutputTokens)
	if c.Fallback.Name != "" {
		fmt.Fprintf(&b, ", fallback %s (max output %d)", c.Fallback.Name, c.Fallback.MaxOutputTokens)
	}
	fmt.Fprintf(&b, "\nscript:\n%s", FormatScript(c.Script))
	line := func(name string, v any) {
		j, _ := json.Marshal(v)
		fmt.Fprintf(&b, "%s: %s\n", name, j)
	}
	if c.Tools.Default != (fakemodel.Tool{}) || len(c.Tools.ByName) > 0 {
		line("tools", c.Tools)
	}
	if c.StopHooks != nil {
		line("stop hooks", c.StopHooks)
	}
	if c.Compactions != nil {
		line("compactions", c.Compactions)
	} else {
		b.WriteString("compactions: the model's (script steps)\n")
	}
	if c.Summaries != nil {
		line("summaries", c.Summaries)
	}
	if c.TokenBudget != 0 {
		fmt.Fprintf(&b, "token budget: %d\n", c.TokenBudget)
	}
	fmt.Fprintf(&b, "initial history: %d messages; seed %d; iteration limit %d\n", len(c.Initial), c.Seed, c.Limit())
	return b.String()
}

// GoString is the case as String writes it, so that rapid's log of a
// drawn case reads like the failure report rather than a struct dump.
func (c Case) GoString() string { return "properties.Case:\n" + c.String() }

// PolicyDiff lists, as "field=value" in field order, the fields of p that
// differ from the built-in profile p.Name (all of them if p.Name names
// none).
func PolicyDiff(p loop.Policy) []string {
	base, err := loop.Profile(p.Name)
	if err != nil {
		base = loop.Policy{Name: p.Name}
	}
	got, want := fieldsOf(p), fieldsOf(base)
	var out []string
	for _, f := range got {
		if i := slices.IndexFunc(want, func(w [2]string) bool { return w[0] == f[0] }); i < 0 || want[i][1] != f[1] {
			out = append(out, f[0]+"="+f[1])
		}
	}
	return out
}

// fieldsOf lists a policy's fields as (JSON name, JSON value) in field
// order.
func fieldsOf(p loop.Policy) [][2]string {
	raw, _ := json.Marshal(p)
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var out [][2]string
	if _, err := dec.Token(); err != nil {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return out
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, [2]string{k.(string), string(v)})
	}
	return out
}
