package sim

import (
	"encoding/json"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// PolicyRow is one policy field whose value differs between the settings
// of a run: its JSON name and its value in each setting, as tables show
// it ([ValueLabel]).
type PolicyRow struct {
	Field  string   `json:"field"`
	Values []string `json:"values"`
}

// PolicyDifferences are the policy fields whose values differ between
// the settings, in the policy's field order (loop.PolicyFields), each
// with its value per setting; none for a single setting. The profile
// zoo: the released agents' policies (simulate -profile
// claude-code,codex,gemini-cli,qwen-code,opencode) and a user's own
// beside them, rule by rule.
func PolicyDifferences(settings []Setting) []PolicyRow {
	if len(settings) < 2 {
		return nil
	}
	values := make([]map[string]string, len(settings))
	for i, s := range settings {
		values[i] = policyValues(s.Policy)
	}
	var out []PolicyRow
	for _, name := range loop.PolicyFields() {
		row := PolicyRow{Field: name, Values: make([]string, len(settings))}
		differs := false
		for i := range settings {
			row.Values[i] = ValueLabel(name, values[i][name])
			differs = differs || row.Values[i] != row.Values[0]
		}
		if differs {
			out = append(out, row)
		}
	}
	return out
}

// policyValues are p's fields by JSON name, each value as text: a number
// or switch as JSON writes it, a list joined by commas ("none" when
// empty).
func policyValues(p loop.Policy) map[string]string {
	raw, err := json.Marshal(p)
	if err != nil {
		panic("sim: a loop.Policy always marshals: " + err.Error())
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		panic("sim: a marshalled loop.Policy is an object: " + err.Error())
	}
	out := make(map[string]string, len(fields))
	for name, v := range fields {
		var list []string
		var s string
		switch {
		case json.Unmarshal(v, &list) == nil:
			out[name] = strings.Join(list, ",")
			if len(list) == 0 {
				out[name] = "none"
			}
		case json.Unmarshal(v, &s) == nil:
			out[name] = s
		default:
			out[name] = string(v)
		}
	}
	return out
}

// writePolicies writes the policy fields the settings differ in, one row
// a field, one column a setting.
func (rep *Report) writePolicies(md *markdown, labels []string) {
	settings := make([]Setting, len(rep.Result.Settings))
	for i, s := range rep.Result.Settings {
		settings[i] = s.Setting
	}
	rows := PolicyDifferences(settings)
	if len(rows) == 0 {
		return
	}
	md.line("## Policies")
	md.line("")
	md.line("The policy fields the settings differ in (by the JSON names -set takes; `simulate -fields` says what each means, " +
		"and docs/profile-NAME.md where each released agent's value was observed); every other field is the same in all of them.")
	md.line("")
	head := append([]string{"field"}, labels...)
	md.table(head, len(rows), func(i int) []string {
		return append([]string{rows[i].Field}, rows[i].Values...)
	})
}
