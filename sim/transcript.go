package sim

import (
	"fmt"

	"github.com/loopsim/loopsim/transcript"
)

// AddSession adds the figures of one real session (see
// [transcript.Session]) to f, all models pooled.
func (f *Figures) AddSession(s *transcript.Session) {
	calls := false
	measureSession(s, func(string) *Figures {
		calls = true
		return f
	})
	if calls {
		f.sessionEnded()
	}
}

// FiguresByModel measures sessions per model: each call counts for the
// model that answered it (a session can switch models), its start, its
// growth from the call before and its prompt's length for that model.
// The models are returned in the order they were first seen.
func FiguresByModel(sessions []*transcript.Session) (models []string, figures map[string]*Figures) {
	figures = map[string]*Figures{}
	for _, s := range sessions {
		seen := map[string]bool{}
		measureSession(s, func(model string) *Figures {
			f, ok := figures[model]
			if !ok {
				f = &Figures{}
				figures[model] = f
				models = append(models, model)
			}
			if !seen[model] {
				seen[model] = true
				f.Sessions++
			}
			return f
		})
	}
	return models, figures
}

// measureSession feeds a session's events to the figures that of(model)
// picks for each call; the caller counts the session.
func measureSession(s *transcript.Session, of func(model string) *Figures) {
	var cs calls
	for _, e := range s.Events {
		switch e.Kind {
		case transcript.EventCall:
			c := e.Call
			f := of(c.Model)
			if cs.f != f && cs.f != nil {
				cs.userPrompt() // a prompt's calls count for one model: the switch ends it
			}
			cs.f = f
			cs.call(c.Usage.Context(), c.Usage.Output, c.Tools)
		case transcript.EventCompaction:
			if cs.f != nil {
				cs.compaction(e.Compaction.Auto, e.Compaction.PreTokens)
			}
		case transcript.EventPrompt:
			if cs.f != nil {
				cs.userPrompt()
			}
		}
	}
	if cs.f != nil {
		cs.userPrompt()
	}
}

// ReadSessions reads every session log under paths (files, or folders
// walked for *.jsonl, subagents left out). A log that cannot be opened is
// an error; malformed and foreign lines are counted in each session.
func ReadSessions(paths ...string) ([]*transcript.Session, error) {
	files, err := transcript.Files(paths...)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("transcripts: no *.jsonl session logs in %v", paths)
	}
	out := make([]*transcript.Session, 0, len(files))
	for _, p := range files {
		s, err := transcript.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ReadTranscripts measures the Claude Code transcripts under dir (the
// *.jsonl files of dir/claude-code/, subagents left out), all models
// pooled.
func ReadTranscripts(dir string) (Figures, error) {
	var f Figures
	sessions, err := ReadSessions(dir + "/claude-code")
	if err != nil {
		return f, fmt.Errorf("transcripts: %w", err)
	}
	for _, s := range sessions {
		f.AddSession(s)
	}
	return f, nil
}
