package fakemodel

import (
	"errors"
	"fmt"
	"slices"

	"github.com/loopsim/loopsim/loop"
)

// Answers are scripts chosen by a request's purpose and model, instead of
// one script in request order: an agent's main requests and compaction
// requests, and the requests it sends to other models (a small model for
// side tasks, a fallback model), each take the next step of their own
// queue. A request takes its step from the queue of its model in Models
// for its purpose when that queue has steps, else from the top-level
// queue for its purpose. A queue with no steps is not written: a request
// that finds no step anywhere is an [ExhaustedError].
type Answers struct {
	// Main answers main requests.
	Main []Step `json:"main,omitempty"`
	// Compact answers compaction requests.
	Compact []Step `json:"compact,omitempty"`
	// Models holds queues for requests to one model, by its name. The
	// queues of a model have no Models of their own.
	Models map[string]Answers `json:"models,omitempty"`
}

// queue is one list of steps and where it has got to.
type queue struct {
	name  string // as a scenario writes it: "script", "answers.main", "answers.models.x.compact"
	steps []Step
	pos   int // index of the step answering the next request
	used  int // requests steps[pos] has answered so far
}

// next takes the step answering the next request and its index.
func (q *queue) next() (int, Step, bool) {
	if q.pos >= len(q.steps) {
		return 0, Step{}, false
	}
	index, step := q.pos, q.steps[q.pos]
	q.used++
	if step.Repeat != Forever && q.used >= max(step.Repeat, 1) {
		q.pos++
		q.used = 0
	}
	return index, step, true
}

// done reports whether every step was played as many times as it
// repeats, or a step that repeats forever was reached.
func (q *queue) done() bool {
	return q.pos >= len(q.steps) || (q.steps[q.pos].Repeat == Forever && q.used > 0)
}

func byPurpose(a Answers, p loop.Purpose) []Step {
	if p == loop.PurposeCompact {
		return a.Compact
	}
	return a.Main
}

func purposeName(p loop.Purpose) string {
	if p == loop.PurposeCompact {
		return "compact"
	}
	return "main"
}

// queueFor returns the queue answering req, creating its cursor the first
// time.
func (m *Model) queueFor(req loop.Request) *queue {
	if m.Answers == nil {
		return m.scriptQueue()
	}
	if mine, ok := m.Answers.Models[req.Model]; ok {
		if steps := byPurpose(mine, req.Purpose); len(steps) > 0 {
			return m.queue(fmt.Sprintf("answers.models.%s.%s", req.Model, purposeName(req.Purpose)), steps)
		}
	}
	return m.queue("answers."+purposeName(req.Purpose), byPurpose(*m.Answers, req.Purpose))
}

// scriptQueue is the queue of Script (a Model without Answers has no
// other), made at the first request.
func (m *Model) scriptQueue() *queue {
	if m.script == nil {
		m.script = &queue{name: "script", steps: m.Script}
	}
	return m.script
}

func (m *Model) queue(name string, steps []Step) *queue {
	if m.queues == nil {
		m.queues = map[string]*queue{}
	}
	q, ok := m.queues[name]
	if !ok {
		q = &queue{name: name, steps: steps}
		m.queues[name] = q
	}
	return q
}

// allQueues lists every queue the model has, in a fixed order: the
// script, or the top-level queues then each model's, by name.
func (m *Model) allQueues() []*queue {
	if m.Answers == nil {
		return []*queue{m.scriptQueue()}
	}
	out := []*queue{m.queue("answers.main", m.Answers.Main), m.queue("answers.compact", m.Answers.Compact)}
	names := make([]string, 0, len(m.Answers.Models))
	for name := range m.Answers.Models {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		a := m.Answers.Models[name]
		out = append(out, m.queue("answers.models."+name+".main", a.Main), m.queue("answers.models."+name+".compact", a.Compact))
	}
	return out
}

// Validate checks every queue as [ValidateScript] does and that a
// model's queues have no Models of their own. Problems are
// [*StepError] values naming their queue.
func (a Answers) Validate() error {
	var errs []error
	check := func(name string, steps []Step) {
		if err := ValidateScript(steps); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	check("answers.main", a.Main)
	check("answers.compact", a.Compact)
	names := make([]string, 0, len(a.Models))
	for name := range a.Models {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		q := a.Models[name]
		if name == "" {
			errs = append(errs, errors.New("answers.models: a model needs a name"))
		}
		if len(q.Models) > 0 {
			errs = append(errs, fmt.Errorf("answers.models.%s.models: a model's queues have no models of their own", name))
		}
		check("answers.models."+name+".main", q.Main)
		check("answers.models."+name+".compact", q.Compact)
	}
	return errors.Join(errs...)
}
