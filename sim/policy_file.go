package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// PolicyFileExt is how a policy file's name ends: a -profile entry that
// ends so is read as a file ([ReadPolicyFile]), not a built-in profile.
const PolicyFileExt = ".json"

// IsPolicyFile reports whether a -profile entry names a policy file.
func IsPolicyFile(name string) bool { return strings.HasSuffix(name, PolicyFileExt) }

// ReadPolicyFile reads a user's own policy: a JSON object naming it, the
// built-in profile it starts from, and the fields it changes, by their
// JSON names (loop.PolicyFields), applied in the order written:
//
//	{
//	  "name": "my-agent",
//	  "profile": "claude-code",
//	  "policy": {"api_retries": 3, "auto_compact_percent": 80, "reactive_only_models": ["m1"]}
//	}
//
// A value is a JSON number, true or false, a string (a terminal name) or
// a list of strings; each is set as -set sets it (loop.Policy.With), so
// the same ranges hold. Unknown keys, a missing name or profile, and a
// field or value the policy refuses are errors naming the file and the
// field.
func ReadPolicyFile(path string) (loop.Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return loop.Policy{}, fmt.Errorf("policy file: %w", err)
	}
	p, err := ParsePolicyFile(data)
	if err != nil {
		return loop.Policy{}, fmt.Errorf("policy file %s: %w", path, err)
	}
	return p, nil
}

// ParsePolicyFile is [ReadPolicyFile] on the file's content. The
// policy's name is the file's name.
func ParsePolicyFile(data []byte) (loop.Policy, error) {
	var top struct {
		Name    string          `json:"name"`
		Profile string          `json:"profile"`
		Policy  json.RawMessage `json:"policy"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&top); err != nil {
		return loop.Policy{}, fmt.Errorf("want {\"name\", \"profile\", \"policy\"}: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return loop.Policy{}, errors.New("more than one JSON value")
	}
	if strings.TrimSpace(top.Name) == "" {
		return loop.Policy{}, errors.New("name: missing (the name the policy goes by in the tables)")
	}
	if top.Profile == "" {
		return loop.Policy{}, fmt.Errorf("profile: missing: the built-in profile it starts from (%s)", strings.Join(loop.Profiles(), ", "))
	}
	p, err := loop.Profile(top.Profile)
	if err != nil {
		return loop.Policy{}, fmt.Errorf("profile: %w", err)
	}
	fields, err := policyFields(top.Policy)
	if err != nil {
		return loop.Policy{}, fmt.Errorf("policy: %w", err)
	}
	for _, f := range fields {
		if p, err = p.With(f.Field, f.Value); err != nil {
			return loop.Policy{}, fmt.Errorf("policy: %w", err)
		}
	}
	p.Name = strings.TrimSpace(top.Name)
	return p, nil
}

// policyFields are the entries of a policy object in the order written,
// each value in its text form.
func policyFields(raw json.RawMessage) ([]Param, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("want an object of fields and values")
	}
	var out []Param
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := t.(string) // an object's keys are strings
		if seen[name] {
			return nil, fmt.Errorf("%s: given twice", name)
		}
		seen[name] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		text, err := valueText(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, Param{Field: name, Value: text})
	}
	return out, nil
}

// valueText is a JSON value as -set writes it.
func valueText(v any) (string, error) {
	switch x := v.(type) {
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		return x, nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("item %d is not a string", i)
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("want a number, true or false, a string or a list of strings, not %s", jsonKind(v))
}

// jsonKind names a decoded JSON value's kind.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
