package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFileSize bounds a scenario file, in bytes.
const MaxFileSize = 1 << 20

// Parse reads one scenario from data. name is the file name messages
// give. Every problem, syntax or meaning, is an [*Error] in the returned
// [ErrorList], located at a line and column and naming the field.
func Parse(name string, data []byte) (*Scenario, error) {
	if len(data) > MaxFileSize {
		return nil, ErrorList{{File: name, Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileSize)}}
	}
	root, err := document(name, data)
	if err != nil {
		return nil, err
	}
	d := newDecoder(name)
	sc := &Scenario{File: name}
	d.decode(root, "", reflect.ValueOf(sc).Elem())
	if len(d.errs) == 0 {
		check(d, sc)
	}
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *Error) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Column - b.Column
		})
		return nil, d.errs
	}
	return sc, nil
}

// document parses data as exactly one YAML document and returns its root.
func document(name string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrorList{{File: name, Msg: "empty file: a scenario is a mapping of fields (see scenarios/README.md)"}}
		}
		return nil, ErrorList{syntaxError(name, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, ErrorList{{File: name, Line: extra.Line, Column: extra.Column, Msg: "a file holds one scenario, but a second YAML document starts here"}}
	case !errors.Is(err, io.EOF):
		return nil, ErrorList{syntaxError(name, err)}
	}
	if len(doc.Content) != 1 {
		return nil, ErrorList{{File: name, Msg: "empty file: a scenario is a mapping of fields (see scenarios/README.md)"}}
	}
	return doc.Content[0], nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the YAML parser's (not scanner's) messages. For
// these the parser names, counting from 0, the line where the enclosing
// collection starts; scanner messages name the line of the problem,
// counting from 1.
var parserProblems = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"did not find expected node content", "did not find expected '-' indicator",
	"did not find expected key", "did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found undefined tag handle", "found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive",
}

// syntaxError turns the YAML parser's error into an [*Error] on the line
// it names.
func syntaxError(name string, err error) *Error {
	msg := err.Error()
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return &Error{File: name, Msg: "YAML syntax: " + strings.TrimPrefix(msg, "yaml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	if slices.Contains(parserProblems, m[2]) {
		return &Error{File: name, Line: line + 1, Msg: "YAML syntax: " + m[2] + " (in the block or flow collection that starts on this line)"}
	}
	return &Error{File: name, Line: line, Msg: "YAML syntax: " + m[2]}
}

// LoadFile reads and parses one scenario file.
func LoadFile(name string) (*Scenario, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, ErrorList{{File: name, Msg: err.Error()}}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, ErrorList{{File: name, Msg: err.Error()}}
	}
	return Parse(name, data)
}

// Load reads scenarios from files and directories: a directory stands for
// the .yaml files directly in it, in name order. It returns the
// scenarios that loaded and, if any file did not, an [ErrorList] of every
// problem of every file. Two scenarios with the same name are an error.
func Load(paths ...string) ([]*Scenario, error) {
	var files []string
	var errs ErrorList
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, &Error{File: p, Msg: err.Error()})
			continue
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		names, err := yamlFiles(os.DirFS(p), ".")
		if err != nil {
			errs = append(errs, &Error{File: p, Msg: err.Error()})
		}
		for _, n := range names {
			files = append(files, filepath.Join(p, n))
		}
	}
	return collect(files, LoadFile, errs)
}

// LoadFS loads the .yaml files directly in dir of fsys, in name order, as
// [Load] does.
func LoadFS(fsys fs.FS, dir string) ([]*Scenario, error) {
	names, err := yamlFiles(fsys, dir)
	if err != nil {
		return nil, ErrorList{{File: dir, Msg: err.Error()}}
	}
	files := make([]string, len(names))
	for i, n := range names {
		files[i] = path.Join(dir, n)
	}
	return collect(files, func(name string) (*Scenario, error) {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, ErrorList{{File: name, Msg: err.Error()}}
		}
		return Parse(name, data)
	}, nil)
}

// yamlFiles lists the names of the .yaml files directly in dir, sorted.
func yamlFiles(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// collect loads every file with load, gathering the problems and
// refusing repeated names.
func collect(files []string, load func(string) (*Scenario, error), errs ErrorList) ([]*Scenario, error) {
	var out []*Scenario
	byName := map[string]string{}
	for _, f := range files {
		sc, err := load(f)
		if err != nil {
			var list ErrorList
			if errors.As(err, &list) {
				errs = append(errs, list...)
			} else {
				errs = append(errs, &Error{File: f, Msg: err.Error()})
			}
			continue
		}
		if first, dup := byName[sc.Name]; dup {
			errs = append(errs, &Error{File: f, Line: sc.namePos.line, Column: sc.namePos.column, Field: "name",
				Msg: fmt.Sprintf("%q is also the name of %s", sc.Name, first)})
			continue
		}
		byName[sc.Name] = f
		out = append(out, sc)
	}
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}
