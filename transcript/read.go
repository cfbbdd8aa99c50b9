package transcript

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxLine is the longest line read; a longer one counts as malformed.
const maxLine = 64 << 20

// Read reads one session log from r. The format is told from the first
// line that either format knows; lines that are not JSON, or that the
// format does not know, are counted in the session (Malformed, Foreign)
// and skipped. Only a failure to read r is an error.
func Read(r io.Reader, name string) (*Session, error) {
	s := &Session{Name: name}
	var claude *claudeReader
	var codex *codexReader
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF && !errors.Is(err, errLong) {
			return s, fmt.Errorf("%s: line %d: %w", name, n, err)
		}
		s.Lines++
		if errors.Is(err, errLong) {
			s.bad(n, false)
			continue
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			s.Lines--
			continue
		}
		var probe struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &probe) != nil {
			s.bad(n, json.Valid(line)) // JSON but not an object: foreign
			continue
		}
		if s.Format == "" {
			switch {
			case codexKinds[probe.Type]:
				s.Format, codex = Codex, &codexReader{s: s}
			case claudeKinds[probe.Type]:
				s.Format, claude = ClaudeCode, newClaudeReader(s)
			default:
				s.bad(n, true)
				continue
			}
		}
		ok := false
		switch s.Format {
		case ClaudeCode:
			var l claudeLine
			ok = json.Unmarshal(line, &l) == nil && claude.line(&l)
		case Codex:
			var l codexLine
			ok = json.Unmarshal(line, &l) == nil && codex.line(&l)
		}
		if !ok {
			s.bad(n, true)
		}
	}
	return s, nil
}

var errLong = errors.New("line too long")

// readLine reads one line without its newline; a line longer than
// maxLine is consumed and reported as errLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return nil, errLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return []byte(strings.TrimRight(string(buf), "\r\n")), err
	}
}

// ReadFile reads the session log at path.
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// Files lists the session logs among paths: a regular file is taken as
// given (anything else but a folder is refused, see [CheckSource]); a
// folder is walked for *.jsonl files, leaving out subagents' folders
// (their logs are side conversations, not sessions). The list is sorted
// within each folder.
func Files(paths ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("transcript: %w", err)
		}
		if err := CheckSource(info); err != nil {
			return nil, fmt.Errorf("transcript: %s is %w", p, err)
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "subagents" {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("transcript: %w", err)
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

// CheckSource refuses a path, described by info, that session logs cannot
// be read from: only a folder (walked for *.jsonl) or a regular file (one
// log) can be; a device such as /dev/null, a pipe or a socket cannot.
func CheckSource(info fs.FileInfo) error {
	m := info.Mode()
	if m.IsDir() || m.IsRegular() {
		return nil
	}
	what := "mode " + m.Type().String()
	switch {
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeIrregular != 0:
		what = "an irregular file"
	}
	return fmt.Errorf("neither a folder nor a regular file (%s)", what)
}
