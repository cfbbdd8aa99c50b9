package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/internal/field"
)

// Sweep varies one field (as [Setting.With] names it) over values.
type Sweep struct {
	Field  string   `json:"field"`
	Values []string `json:"values"`
}

// maxSweepValues caps the values of one sweep.
const maxSweepValues = 100

// ParseSweep reads "field=v1,v2,v3" or "field=from:to:step" (from, to
// and step integers or decimals, read by internal/field's rule, to
// included when the steps reach it).
func ParseSweep(spec string) (Sweep, error) {
	field, values, ok := strings.Cut(spec, "=")
	field, values = strings.TrimSpace(field), strings.TrimSpace(values)
	if !ok || field == "" || values == "" {
		return Sweep{}, fmt.Errorf("sweep %q: want field=v1,v2,... or field=from:to:step", spec)
	}
	s := Sweep{Field: field}
	if strings.Count(values, ":") == 2 && !strings.Contains(values, ",") {
		vs, err := expandRange(values)
		if err != nil {
			return Sweep{}, fmt.Errorf("sweep %s: %w", field, err)
		}
		s.Values = vs
		return s, nil
	}
	for _, v := range strings.Split(values, ",") {
		if v = strings.TrimSpace(v); v == "" {
			return Sweep{}, fmt.Errorf("sweep %s: empty value in %q", field, values)
		}
		s.Values = append(s.Values, v)
	}
	if len(s.Values) > maxSweepValues {
		return Sweep{}, fmt.Errorf("sweep %s: %d values, at most %d", field, len(s.Values), maxSweepValues)
	}
	return s, nil
}

// expandRange expands "from:to:step".
func expandRange(r string) ([]string, error) {
	parts := strings.Split(r, ":")
	var x [3]float64
	decimals := 0
	for i, p := range parts {
		p = strings.TrimSpace(p)
		v, err := field.ParseFloat(p)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("range %q: %q is not a finite number", r, p)
		}
		x[i] = v
		if _, frac, ok := strings.Cut(p, "."); ok {
			decimals = max(decimals, len(strings.ReplaceAll(frac, "_", "")))
		}
	}
	from, to, step := x[0], x[1], x[2]
	if step <= 0 || to < from {
		return nil, fmt.Errorf("range %q: want from <= to and a positive step", r)
	}
	// the count as a float first: (to-from)/step may be beyond any int
	// (or infinite, when to-from overflows)
	count := math.Floor((to-from)/step+1e-9) + 1
	if !(count <= maxSweepValues) {
		many := "more than 10^308"
		if !math.IsInf(count, 0) {
			many = strconv.FormatFloat(count, 'g', 4, 64)
		}
		return nil, fmt.Errorf("range %q: %s values, at most %d", r, many, maxSweepValues)
	}
	n := int(count)
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.FormatFloat(from+float64(i)*step, 'f', decimals, 64)
		if i > 0 && out[i] == out[i-1] {
			return nil, fmt.Errorf("range %q: the step is too small to tell %s from the next value (write the values out)", r, out[i])
		}
	}
	return out, nil
}

// maxSettings caps the settings of one simulation.
const maxSettings = 400

// Grid is every combination of bases (one per profile, say) and the
// sweeps' values: bases outermost, then the first sweep, then the
// second. Each setting gets its values by [Setting.With], so a bad field
// or value is an error here, before anything runs.
func Grid(bases []Setting, sweeps []Sweep) ([]Setting, error) {
	out := bases
	for _, sw := range sweeps {
		var next []Setting
		for _, s := range out {
			for _, v := range sw.Values {
				t, err := s.With(sw.Field, v)
				if err != nil {
					return nil, fmt.Errorf("sweep: %w", err)
				}
				next = append(next, t)
			}
		}
		out = next
		if len(out) > maxSettings {
			return nil, fmt.Errorf("sweep: %d settings, at most %d", len(out), maxSettings)
		}
	}
	return out, nil
}
