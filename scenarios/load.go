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
	"syscall"
	"unicode/utf8"

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
	if e := textProblem(name, data); e != nil {
		return nil, ErrorList{e}
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
		return nil, ErrorList{syntaxError(name, data, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, ErrorList{{File: name, Line: extra.Line, Column: extra.Column, Msg: "a file holds one scenario, but a second YAML document starts here"}}
	case !errors.Is(err, io.EOF):
		return nil, ErrorList{syntaxError(name, data, err)}
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

var unknownAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)

// syntaxError turns the YAML parser's error into an [*Error] on the line
// it names. The parser names no line for an alias to an undefined
// anchor: the alias is found in data.
func syntaxError(name string, data []byte, err error) *Error {
	msg := err.Error()
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		e := &Error{File: name, Msg: fmt.Sprintf("alias *%s refers to no anchor (and anchors and aliases are not supported: write the value out)", m[1])}
		at := regexp.MustCompile(`\*` + regexp.QuoteMeta(m[1]) + `(?:[\s,\]}:]|$)`).FindIndex(data)
		if at != nil {
			e.Line, e.Column = lineColumn(data, at[0])
		}
		return e
	}
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

// lineColumn is the line and column, both from 1, of byte offset i of
// data; the column counts characters.
func lineColumn(data []byte, i int) (int, int) {
	before := data[:i]
	line := 1 + bytes.Count(before, []byte("\n"))
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[start:])
}

// textProblem finds the first thing in data that cannot be YAML text:
// bytes that are not UTF-8, a NUL byte or another control character
// (binary data). The YAML parser reports these without a position.
func textProblem(name string, data []byte) *Error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return &Error{File: name, Line: line, Column: col,
				Msg: fmt.Sprintf("byte 0x%02x is not UTF-8: a scenario is YAML text, not binary data", data[i])}
		case r == '\n':
			line, col = line+1, 1
			i += size
			continue
		case !yamlPrintable(r):
			what := fmt.Sprintf("control character U+%04X", r)
			if r == 0 {
				what = "NUL byte"
			}
			return &Error{File: name, Line: line, Column: col,
				Msg: fmt.Sprintf("%s: a scenario is YAML text, not binary data", what)}
		}
		col++
		i += size
	}
	return nil
}

// yamlPrintable reports whether YAML allows r in a stream (YAML 1.2
// §5.1: tab, line breaks, printable ASCII, NEL and most of Unicode).
func yamlPrintable(r rune) bool {
	return r == '\t' || r == '\r' || (r >= 0x20 && r <= 0x7e) || r == 0x85 ||
		(r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || (r >= 0x10000 && r <= 0x10ffff)
}

// LoadFile reads and parses one scenario file. Anything but a regular
// file (a named pipe, a device) is refused before it is read: reading one
// could block for ever.
func LoadFile(name string) (*Scenario, error) {
	// O_NONBLOCK: opening a named pipe must not wait for a writer
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, ErrorList{{File: name, Msg: err.Error()}}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, ErrorList{{File: name, Msg: err.Error()}}
	}
	if !info.Mode().IsRegular() {
		return nil, ErrorList{{File: name, Msg: notRegular(info.Mode())}}
	}
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
		info, err := fs.Stat(fsys, name)
		if err != nil {
			return nil, ErrorList{{File: name, Msg: err.Error()}}
		}
		if !info.Mode().IsRegular() {
			return nil, ErrorList{{File: name, Msg: notRegular(info.Mode())}}
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, ErrorList{{File: name, Msg: err.Error()}}
		}
		return Parse(name, data)
	}, nil)
}

// notRegular says why a file that is not a regular one is refused.
func notRegular(m fs.FileMode) string {
	what := "not a regular file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		what = "a device, not a regular file"
	case m&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	case m.IsDir():
		what = "a directory, not a regular file"
	}
	return what + ": a scenario is read from a .yaml file"
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
