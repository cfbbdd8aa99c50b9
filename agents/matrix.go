package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/scenarios"
)

// Entrant is one agent of a matrix: a preset and the binary it runs, or
// why it is left out.
type Entrant struct {
	Preset Preset `json:"-"`
	// Name, Package, Version and API are the preset's.
	Name    string `json:"name"`
	Package string `json:"package"`
	Version string `json:"version"`
	API     string `json:"api"`
	// Bin is the binary run; empty when the agent is absent.
	Bin string `json:"-"`
	// Absent says why the agent was left out (its binary was not found).
	Absent string `json:"absent,omitempty"`
}

// NewEntrant is preset p run from bin (its name on PATH when empty), or
// absent, saying why.
func NewEntrant(p Preset, bin string) Entrant {
	e := Entrant{Preset: p, Name: p.Name, Package: p.Package, Version: p.Version, API: p.API}
	path, err := p.Find(bin)
	if err != nil {
		e.Absent = err.Error()
		return e
	}
	e.Bin = path
	return e
}

// Cell is one scenario run by one agent.
type Cell struct {
	Scenario string `json:"scenario"`
	Agent    string `json:"agent"`
	// Requests is the request sequence the server saw (M:429, M:text, ...).
	Requests []string `json:"requests"`
	// Exit is the agent's exit status; -1 when it was killed.
	Exit int `json:"exit"`
	// FinalEvent is the agent's last word: the type (and subtype) of its
	// last JSON line of output, else its last line.
	FinalEvent string `json:"final_event"`
	// Seconds is the run's wall-clock time.
	Seconds float64 `json:"seconds"`
	// TimedOut says the agent was killed at the time limit.
	TimedOut bool `json:"timed_out,omitempty"`
	// Error says why the run could not be judged, if it could not.
	Error string `json:"error,omitempty"`
	// Broken lists the rules the agent broke (see [Judge]).
	Broken []string `json:"broken,omitempty"`
	// Records are the server's records of the run's requests, for the
	// exporters (simulate matrix -otlp, -timeline); not in matrix.json.
	Records []wire.Record `json:"-"`
	// Started is when the run started on the wall clock, the origin of
	// the records' times (a measurement); not in matrix.json.
	Started time.Time `json:"-"`
}

// Matrix is every scenario run by every agent present.
type Matrix struct {
	Agents    []Entrant `json:"agents"`
	Scenarios []string  `json:"scenarios"`
	// Timeout is the time limit of one cell, in seconds.
	Timeout float64 `json:"timeout_seconds"`
	// Cells are by scenario, then agent, in the order given; absent
	// agents have none.
	Cells []Cell `json:"cells"`
	// Seconds is the whole run's wall-clock time.
	Seconds float64 `json:"seconds"`
	// JudgedBy names the rules the cells were judged by: [JudgedByInvariants]
	// for a matrix run since the matrix judges by the wire invariants;
	// empty for one judged by the matrix's former rules
	// ([FormerRules]), whose JSON says nothing.
	JudgedBy string `json:"judged_by,omitempty"`
}

// JudgedByInvariants is [Matrix.JudgedBy] of a matrix judged by
// properties/wirecheck's invariants ([Judge]).
const JudgedByInvariants = "wirecheck invariants"

// MatrixConfig configures [RunMatrix].
type MatrixConfig struct {
	// Timeout bounds one cell.
	Timeout time.Duration
	// Parallel is how many cells run at once; below 1 means 1.
	Parallel int
	// Progress, when set, is called as each cell ends (done of total).
	Progress func(done, total int, c Cell)
}

// RunMatrix runs every scenario with every present agent.
func RunMatrix(ctx context.Context, list []*scenarios.Scenario, agents []Entrant, cfg MatrixConfig) *Matrix {
	began := time.Now()
	m := &Matrix{Agents: agents, Timeout: cfg.Timeout.Seconds(), JudgedBy: JudgedByInvariants}
	type job struct {
		i int
		s *scenarios.Scenario
		e Entrant
	}
	var jobs []job
	for _, s := range list {
		m.Scenarios = append(m.Scenarios, s.Name)
		for _, e := range agents {
			if e.Absent == "" {
				jobs = append(jobs, job{len(jobs), s, e})
			}
		}
	}
	m.Cells = make([]Cell, len(jobs))
	work := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(cfg.Parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				c := RunCell(ctx, j.s, j.e, cfg.Timeout)
				mu.Lock()
				m.Cells[j.i] = c
				done++
				if cfg.Progress != nil {
					cfg.Progress(done, len(jobs), c)
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		work <- j
	}
	close(work)
	wg.Wait()
	m.Seconds = time.Since(began).Seconds()
	return m
}

// RunCell runs scenario s with agent e and judges the run.
func RunCell(ctx context.Context, s *scenarios.Scenario, e Entrant, timeout time.Duration) Cell {
	c, _ := runCell(ctx, s, e, timeout)
	return c
}

// runCell is [RunCell] that also returns what the run collected (nil
// when it could not start).
func runCell(ctx context.Context, s *scenarios.Scenario, e Entrant, timeout time.Duration) (Cell, *scenarios.AgentOutcome) {
	c := Cell{Scenario: s.Name, Agent: e.Name}
	a := e.Preset.Agent(e.Bin)
	a.Timeout = timeout
	c.Started = time.Now()
	out, err := scenarios.RunAgent(ctx, s, a)
	var ae *scenarios.AgentError
	if errors.As(err, &ae) {
		out = ae.Outcome
		c.TimedOut = strings.Contains(ae.Msg, "did not finish within")
		if !c.TimedOut {
			c.Error = ae.Msg
		}
	} else if err != nil {
		c.Error = err.Error()
	}
	if out == nil {
		return c, nil
	}
	c.Requests, c.Exit, c.Seconds, c.Records = wire.Labels(out.Records), out.Exit, out.Elapsed.Seconds(), out.Records
	c.FinalEvent = scenarios.FinalEvent(out.Stdout, out.LastOutput)
	c.Broken = Judge(out, c.TimedOut, a.Timeout)
	return c, out
}

// Broken says whether any cell broke a rule.
func (m *Matrix) Broken() bool {
	for _, c := range m.Cells {
		if len(c.Broken) > 0 {
			return true
		}
	}
	return false
}

// cell is the cell of scenario s and agent a, if it ran.
func (m *Matrix) cell(s, a string) (Cell, bool) {
	for _, c := range m.Cells {
		if c.Scenario == s && c.Agent == a {
			return c, true
		}
	}
	return Cell{}, false
}

// Sequence is a request sequence with runs of one label written once
// with their count: M:500 ×11.
func Sequence(reqs []string) string {
	var parts []string
	for i := 0; i < len(reqs); {
		j := i
		for j < len(reqs) && reqs[j] == reqs[i] {
			j++
		}
		if n := j - i; n > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", reqs[i], n))
		} else {
			parts = append(parts, reqs[i])
		}
		i = j
	}
	return strings.Join(parts, " ")
}
