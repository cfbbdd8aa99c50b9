package main

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/internal/field"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
)

// fieldInfo describes one field -set and -sweep accept.
type fieldInfo struct {
	name    string // as -set takes it
	typ     string // int, float, bool, or one of a list
	valid   string // the range or the values allowed
	def     string // the default, per profile when they differ
	meaning string
}

// policyFieldInfos describes every policy field: its type and range from
// the Policy struct's tags, its value in each profile, its meaning from
// the field's doc comment (fieldDocs).
func policyFieldInfos() []fieldInfo {
	t := reflect.TypeOf(loop.Policy{})
	var profiles []reflect.Value
	names := loop.Profiles()
	for _, n := range names {
		p, err := loop.Profile(n)
		if err != nil {
			continue
		}
		profiles = append(profiles, reflect.ValueOf(p))
	}
	var out []fieldInfo
	for _, pf := range field.Fields(t) {
		f, name, i := pf.Struct, pf.Path, pf.Index
		if name == "name" {
			continue
		}
		fi := fieldInfo{name: name, typ: field.TypeName(f.Type), meaning: fieldDocs["policy."+name]}
		if r := f.Tag.Get("range"); r != "" {
			lo, hi, _ := strings.Cut(r, ",")
			fi.valid = "[" + lo + ", " + hi + "]"
		}
		if o := f.Tag.Get("oneof"); o != "" {
			fi.typ, fi.valid = "one of", strings.ReplaceAll(o, ",", ", ")
		}
		var defs []string
		same := true
		for k, p := range profiles {
			v := valueText(p.FieldByIndex(i))
			defs = append(defs, names[k]+" "+v)
			same = same && v == valueText(profiles[0].FieldByIndex(i))
		}
		if same && len(profiles) > 0 {
			fi.def = valueText(profiles[0].FieldByIndex(i))
		} else {
			fi.def = strings.Join(defs, ", ")
		}
		out = append(out, fi)
	}
	return out
}

// workloadFieldInfos describes every workload parameter, with the
// default workload's values.
func workloadFieldInfos() []fieldInfo {
	var out []fieldInfo
	w := reflect.ValueOf(fakemodel.DefaultWorkload())
	for _, f := range field.Fields(w.Type()) {
		path, typ := f.Path, f.Struct.Type
		meaning := fieldDocs["workload."+path]
		if meaning == "" {
			meaning = fieldDocs[f.Parent.String()+"."+f.Struct.Name] // a distribution's parameter
			if i := strings.LastIndexByte(path, '.'); i >= 0 && fieldDocs["workload."+path[:i]] != "" {
				meaning = fieldDocs["workload."+path[:i]] + " " + meaning // the group's doc first
			}
		}
		fi := fieldInfo{name: "workload." + path, typ: field.TypeName(typ), def: valueText(w.FieldByIndex(f.Index)), meaning: meaning}
		switch {
		case strings.HasPrefix(path, "faults.") && typ.Kind() == reflect.Float64:
			fi.valid = "[0, 1]"
		case typ.Kind() == reflect.Int:
			fi.valid = "[0, ...]"
		}
		out = append(out, fi)
	}
	return out
}

// otherFieldInfos describes the fields that are neither policy nor
// workload (sim.SettingFields), with the default setting's values.
func otherFieldInfos() []fieldInfo {
	var models []string
	models = append(models, loop.CatalogNames()...)
	for _, m := range sim.ModelWorkloads {
		if _, err := loop.LookupModel(m.Model.Name); err != nil {
			models = append(models, m.Model.Name)
		}
	}
	base := reflect.ValueOf(sim.Setting{Model: sim.DefaultModel, IterationLimit: sim.DefaultIterationLimit})
	var out []fieldInfo
	for _, f := range sim.SettingFields() {
		fi := fieldInfo{name: f.Name, typ: "int", valid: fmt.Sprintf("[%d, %d]", f.Min, f.Max), meaning: f.Doc}
		switch f.Name {
		case "model":
			fi.typ, fi.valid, fi.def = "one of", strings.Join(models, ", "), sim.DefaultModel.Name
		case "fallback_model":
			fi.typ, fi.valid, fi.def = "one of", strings.Join(loop.CatalogNames(), ", ")+", none", "none"
		default:
			v, err := field.Find(base, f.Name)
			if err != nil {
				continue
			}
			fi.def = valueText(v)
			if strings.HasPrefix(f.Name, "fallback_model.") {
				fi.def = "none"
			}
		}
		out = append(out, fi)
	}
	return out
}

func valueText(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = valueText(v.Index(i))
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v.Interface())
}

// writeFields lists what -set and -sweep accept: each field's type,
// range or allowed values, default and meaning.
func writeFields(w io.Writer) {
	groups := []struct {
		title  string
		fields []fieldInfo
	}{
		{"Policy fields (loop/policy.go; the default per profile)", policyFieldInfos()},
		{"Workload parameters (fakemodel/workload.go; the default workload's values)", workloadFieldInfos()},
		{"Model and harness", otherFieldInfos()},
	}
	for g, grp := range groups {
		if g > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, grp.title+":")
		for _, f := range grp.fields {
			typ := f.typ
			if f.valid != "" {
				typ += " " + f.valid
			}
			fmt.Fprintf(w, "  %s  (%s; default %s)\n", f.name, typ, f.def)
			if f.meaning != "" {
				fmt.Fprintf(w, "      %s\n", f.meaning)
			}
		}
	}
}
