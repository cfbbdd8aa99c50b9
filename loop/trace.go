package loop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
)

// Trace is the ordered record of a run's events.
type Trace []Event

// Transitions returns the transitions of the trace in order.
func (t Trace) Transitions() []Transition {
	var out []Transition
	for _, e := range t {
		if x, ok := e.(TransitionEvent); ok {
			out = append(out, x.Transition)
		}
	}
	return out
}

// Terminal returns the trace's terminal, or "" if it has none.
func (t Trace) Terminal() Terminal {
	for i := len(t) - 1; i >= 0; i-- {
		if x, ok := t[i].(TerminalEvent); ok {
			return x.Terminal
		}
	}
	return ""
}

// Requests returns the request events in order.
func (t Trace) Requests() []RequestEvent {
	var out []RequestEvent
	for _, e := range t {
		if x, ok := e.(RequestEvent); ok {
			out = append(out, x)
		}
	}
	return out
}

// MarshalEvent encodes one event as a JSON object whose first field is
// "kind".
func MarshalEvent(e Event) ([]byte, error) {
	var enc bytes.Buffer
	je := json.NewEncoder(&enc)
	je.SetEscapeHTML(false)
	if err := je.Encode(e); err != nil {
		return nil, fmt.Errorf("marshal %s event: %w", e.EventKind(), err)
	}
	body := bytes.TrimRight(enc.Bytes(), "\n")
	var b bytes.Buffer
	b.WriteString(`{"kind":`)
	k, _ := json.Marshal(e.EventKind())
	b.Write(k)
	if len(body) > 2 {
		b.WriteByte(',')
		b.Write(body[1:])
	} else {
		b.WriteByte('}')
	}
	return b.Bytes(), nil
}

// UnmarshalEvent decodes one event written by [MarshalEvent]. Unknown
// kinds and unknown fields are errors.
func UnmarshalEvent(data []byte) (Event, error) {
	var head struct {
		Kind EventKind `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("decode event: %w", err)
	}
	ptr, ok := newEvent(head.Kind)
	if !ok {
		return nil, fmt.Errorf("decode event: unknown kind %q", head.Kind)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("decode %s event: %w", head.Kind, err)
	}
	delete(obj, "kind")
	rest, _ := json.Marshal(obj)
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(ptr); err != nil {
		return nil, fmt.Errorf("decode %s event: %w", head.Kind, err)
	}
	return reflect.ValueOf(ptr).Elem().Interface().(Event), nil
}

// WriteJSONL writes the trace as JSON Lines, one event a line.
func (t Trace) WriteJSONL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, e := range t {
		b, err := MarshalEvent(e)
		if err != nil {
			return fmt.Errorf("event %d: %w", i, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadJSONL reads a trace written by [Trace.WriteJSONL]. Errors name the
// line.
func ReadJSONL(r io.Reader) (Trace, error) {
	var t Trace
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		e, err := UnmarshalEvent(sc.Bytes())
		if err != nil {
			if rerr := sc.Err(); rerr != nil {
				// the reader failed mid-line: its error, not the cut line's
				return t, fmt.Errorf("trace line %d: %w", line, rerr)
			}
			return t, fmt.Errorf("trace line %d: %w", line, err)
		}
		t = append(t, e)
	}
	if err := sc.Err(); err != nil {
		return t, fmt.Errorf("trace line %d: %w", line+1, err)
	}
	return t, nil
}
