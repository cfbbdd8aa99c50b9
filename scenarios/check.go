package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
)

// checker finds what a decoded scenario gets wrong beyond its syntax:
// missing required fields, impossible values, names that name nothing.
// It reports each at the position the decoder recorded for the field.
type checker struct {
	d  *decoder
	sc *Scenario
}

func (c *checker) errorf(path, format string, args ...any) {
	c.d.errorAt(c.d.where(path), path, format, args...)
}

// check validates sc and resolves its policy. Problems go to d.
func check(d *decoder, sc *Scenario) {
	c := &checker{d: d, sc: sc}
	sc.namePos = d.where("name")
	c.header()
	c.policy()
	c.modelDefaults()
	c.conversation()
	c.script()
	c.fakes()
	c.expect()
	c.recheck()
}

// recheck checks a finding's section: a known API, at least one
// invariant, each once, and answers to play (the schedule). The
// invariants' and limits' names are wirecheck's, which checks them.
func (c *checker) recheck() {
	r := c.sc.Recheck
	if r == nil {
		return
	}
	names := apiNames()
	switch {
	case r.API == "":
		c.errorf("recheck.api", "missing: the API the finding was served on (%s)", strings.Join(names, ", "))
	case !slices.Contains(names, r.API):
		c.errorf("recheck.api", "unknown API %q (known: %s)", r.API, strings.Join(names, ", "))
	}
	if len(r.Invariants) == 0 {
		c.errorf("recheck.invariants", "missing: the wire invariants the agent broke")
	}
	for i, name := range r.Invariants {
		if slices.Contains(r.Invariants[:i], name) {
			c.errorf(fmt.Sprintf("recheck.invariants[%d]", i), "%q is listed twice", name)
		}
	}
	if c.sc.Answers == nil || len(c.sc.Answers.Main) == 0 {
		c.errorf("recheck", "a finding's schedule is answers.main: write it")
	}
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// header checks the fields that describe the scenario.
func (c *checker) header() {
	sc := c.sc
	switch {
	case sc.Name == "":
		c.errorf("name", "missing: every scenario needs a name")
	case !namePattern.MatchString(sc.Name):
		c.errorf("name", "%q: use lower-case letters, digits and '-' (it names the golden trace file)", sc.Name)
	}
	if strings.TrimSpace(sc.Description) == "" {
		c.errorf("description", "missing: say what the scenario shows")
	}
}

// policy resolves the profile and applies the overrides in order.
func (c *checker) policy() {
	sc := c.sc
	if sc.Profile == "" {
		c.errorf("profile", "missing: one of %s", strings.Join(loop.Profiles(), ", "))
		return
	}
	p, err := loop.Profile(sc.Profile)
	if err != nil {
		c.errorf("profile", "%v", err)
		return
	}
	for _, o := range sc.Policy {
		if o.Field == "name" {
			c.errorf("policy.name", "the policy's name is the profile's; it cannot be overridden")
			continue
		}
		q, err := p.With(o.Field, o.Value)
		if err != nil {
			c.errorf("policy."+o.Field, "%v", err)
			continue
		}
		p = q
	}
	sc.policy = p
}

// modelDefaults fills the unset model fields and checks the fallback.
func (c *checker) modelDefaults() {
	sc := c.sc
	m := &sc.Model
	if m.Name == "" {
		m.Name = DefaultModel.Name
	}
	def := DefaultModel
	if k, err := loop.LookupModel(m.Name); err == nil {
		def = k.ModelInfo
	}
	if m.ContextWindow == 0 {
		m.ContextWindow = def.ContextWindow
	}
	if m.MaxOutputTokens == 0 {
		m.MaxOutputTokens = def.MaxOutputTokens
	}
	f := &sc.FallbackModel
	if *f == (loop.ModelInfo{}) {
		return
	}
	if k, err := loop.LookupModel(f.Name); err == nil {
		if f.ContextWindow == 0 {
			f.ContextWindow = k.ContextWindow
		}
		if f.MaxOutputTokens == 0 {
			f.MaxOutputTokens = k.MaxOutputTokens
		}
	}
	switch {
	case f.Name == "":
		c.errorf("fallback_model.name", "missing: a fallback model needs a name")
	case f.Name == m.Name:
		c.errorf("fallback_model.name", "%q is the main model's name too", f.Name)
	}
	if f.ContextWindow == 0 {
		f.ContextWindow = m.ContextWindow
	}
	if f.MaxOutputTokens == 0 {
		f.MaxOutputTokens = m.MaxOutputTokens
	}
}

// conversation checks the starting history: roles, content, ids, and
// that every tool_result answers an earlier tool_use.
func (c *checker) conversation() {
	sc := c.sc
	if len(sc.Conversation) == 0 {
		c.errorf("conversation", "missing: the starting history needs at least one message")
		return
	}
	before := len(c.d.errs)
	defer func() {
		if len(c.d.errs) == before {
			c.history()
		}
	}()
	ids := map[string]string{}
	uses := map[string]bool{}
	for i, m := range sc.Conversation {
		at := fmt.Sprintf("conversation[%d]", i)
		if m.ID != "" {
			if first, dup := ids[m.ID]; dup {
				c.errorf(at+".id", "%q is also the id of %s", m.ID, first)
			}
			ids[m.ID] = at
		}
		switch m.Role {
		case loop.RoleUser, loop.RoleAssistant:
		case "":
			c.errorf(at+".role", "missing: user or assistant")
		default:
			c.errorf(at+".role", "%q is neither user nor assistant", m.Role)
		}
		if m.Text == "" && len(m.ToolUses) == 0 && len(m.ToolResults) == 0 {
			c.errorf(at, "empty message: give it text, tool_uses or tool_results")
		}
		if m.Role != loop.RoleAssistant {
			if len(m.ToolUses) > 0 {
				c.errorf(at+".tool_uses", "only an assistant message carries tool_uses")
			}
			if m.Usage != nil {
				c.errorf(at+".usage", "only an assistant message carries usage")
			}
		}
		if m.Role != loop.RoleUser && len(m.ToolResults) > 0 {
			c.errorf(at+".tool_results", "only a user message carries tool_results")
		}
		for j, u := range m.ToolUses {
			p := fmt.Sprintf("%s.tool_uses[%d]", at, j)
			switch {
			case u.ID == "":
				c.errorf(p+".id", "missing: a tool_use in the conversation needs an id for its tool_result")
			case uses[u.ID]:
				c.errorf(p+".id", "tool_use id %q is used twice", u.ID)
			}
			if u.Name == "" {
				c.errorf(p+".name", "missing: the tool's name")
			}
			if err := u.ValidateInput(); err != nil {
				c.errorf(p+".input", "%v", err)
			}
			uses[u.ID] = true
		}
		for j, r := range m.ToolResults {
			p := fmt.Sprintf("%s.tool_results[%d].tool_use_id", at, j)
			switch {
			case r.ToolUseID == "":
				c.errorf(p, "missing: the tool_use this result answers")
			case !uses[r.ToolUseID]:
				c.errorf(p, "%q answers no earlier tool_use", r.ToolUseID)
			}
		}
	}
}

// history checks the conversation as the loop will receive it against
// the rules of [loop.ValidateHistory] (the first message is the user's,
// every tool_use is answered exactly once, ...), reporting a broken rule
// at the message that breaks it.
func (c *checker) history() {
	initial := make([]loop.Message, len(c.sc.Conversation))
	for i, m := range c.sc.Conversation {
		initial[i] = m.message()
	}
	var he *loop.HistoryError
	switch err := loop.ValidateHistory(initial); {
	case err == nil:
	case errors.As(err, &he) && he.Index >= 0:
		c.errorf(fmt.Sprintf("conversation[%d]", he.Index), "%s", he.Rule)
	default:
		c.errorf("conversation", "%v", err)
	}
}

// script checks every step where it was written, and that nothing
// follows a step that repeats forever.
func (c *checker) script() {
	sc := c.sc
	switch {
	case sc.Script == nil && sc.Answers == nil:
		c.errorf("script", "missing: one step a request, compaction requests included ([] for a run that must send none), or answers by purpose and model")
		return
	case sc.Script != nil && sc.Answers != nil:
		c.errorf("answers", "a scenario has either a script or answers, not both")
		return
	case sc.Answers != nil:
		c.steps("answers.main", sc.Answers.Main)
		c.steps("answers.compact", sc.Answers.Compact)
		for _, name := range sortedKeys(sc.Answers.Models) {
			q := sc.Answers.Models[name]
			if len(q.Models) > 0 {
				c.errorf("answers.models."+name+".models", "a model's queues have no models of their own")
			}
			c.steps("answers.models."+name+".main", q.Main)
			c.steps("answers.models."+name+".compact", q.Compact)
		}
		return
	}
	c.steps("script", sc.Script)
}

// steps checks one list of steps written at path.
func (c *checker) steps(path string, steps []fakemodel.Step) {
	for i, s := range steps {
		at := fmt.Sprintf("%s[%d]", path, i)
		if !c.stepKinds(s, at) {
			continue
		}
		if err := s.Validate(); err != nil {
			c.errorf(at, "%v", err)
		}
		if s.Repeat == fakemodel.Forever && i < len(steps)-1 {
			c.errorf(fmt.Sprintf("%s[%d]", path, i+1), "unreachable: step %d repeats forever", i)
		}
	}
}

// stepKinds reports whether every kind in step s, branches included, is
// known, reporting those that are not at their own field.
func (c *checker) stepKinds(s fakemodel.Step, at string) bool {
	ok := true
	if s.Kind != "" && !slices.Contains(fakemodel.Kinds, s.Kind) {
		names := make([]string, len(fakemodel.Kinds))
		for i, k := range fakemodel.Kinds {
			names[i] = string(k)
		}
		c.errorf(at+".kind", "unknown kind %q (known: %s)", s.Kind, strings.Join(names, ", "))
		ok = false
	}
	if s.Then != nil {
		ok = c.stepKinds(*s.Then, at+".then") && ok
	}
	if s.Else != nil {
		ok = c.stepKinds(*s.Else, at+".else") && ok
	}
	return ok
}

// fakes checks the tools, hooks and summarizer for behaviours that could
// only hang: something that waits to be cancelled with nothing to cancel
// it.
func (c *checker) fakes() {
	sc := c.sc
	tools := sc.toolBehaviours()
	abortTool := slices.ContainsFunc(tools, func(t namedTool) bool { return t.tool.Abort })
	for _, t := range tools {
		if t.tool.Slow && !abortTool {
			c.errorf(t.path+".slow", "a slow tool waits until the run is aborted, but no tool aborts it (give another tool abort: true, concurrent with this one)")
		}
	}
	for _, t := range tools {
		if err := t.tool.Validate(); err != nil {
			c.errorf(t.path, "%v", err)
		}
	}
	for i, o := range sc.StopHooks {
		if err := o.Validate(); err != nil {
			c.errorf(fmt.Sprintf("stop_hooks[%d]", i), "%v", err)
		}
	}
	for i, o := range sc.Compactor {
		if err := o.Validate(); err != nil {
			c.errorf(fmt.Sprintf("compactor[%d]", i), "%v", err)
		}
	}
	abortStep := slices.ContainsFunc(sc.allSteps(), hasAbortStep)
	for i, o := range sc.Summarizer {
		if o.Slow && !abortTool && !abortStep {
			c.errorf(fmt.Sprintf("summarizer[%d].slow", i), "a slow summary waits until the run is aborted, but nothing aborts it")
		}
	}
}

// namedTool is one scripted tool behaviour and where it was written.
type namedTool struct {
	path string
	tool fakemodel.Tool
}

// toolBehaviours lists every tool behaviour of the scenario, in a fixed
// order: default, then by_name and by_id sorted by key.
func (s *Scenario) toolBehaviours() []namedTool {
	out := []namedTool{{"tools.default", s.Tools.Default}}
	for _, group := range []struct {
		path string
		m    map[string]fakemodel.Tool
	}{{"tools.by_name", s.Tools.ByName}, {"tools.by_id", s.Tools.ByID}} {
		for _, k := range sortedKeys(group.m) {
			out = append(out, namedTool{group.path + "." + k, group.m[k]})
		}
	}
	return out
}

func hasAbortStep(s fakemodel.Step) bool {
	return s.Kind == fakemodel.Abort ||
		(s.Then != nil && hasAbortStep(*s.Then)) || (s.Else != nil && hasAbortStep(*s.Else))
}

// expect checks the expectation names only what exists.
func (c *checker) expect() {
	e := &c.sc.Expect
	switch {
	case e.Terminal != "" && e.Halted:
		c.errorf("expect.halted", "a run either ends in a terminal or is halted; expect one of terminal and halted, not both")
	case e.Terminal == "" && !e.Halted:
		c.errorf("expect.terminal", "missing: the terminal the run must end with (or halted: true for a run that never ends)")
	case e.Terminal != "" && !e.Terminal.Valid():
		c.errorf("expect.terminal", "unknown terminal %q (known: %s)", e.Terminal, terminalList())
	}
	if e.Transitions == nil {
		c.errorf("expect.transitions", "missing: the exact transition sequence ([] when the run never continues)")
	}
	total := 0
	for i, entry := range e.Transitions {
		_, n, err := parseTransitionEntry(entry)
		if err != nil {
			c.errorf(fmt.Sprintf("expect.transitions[%d]", i), "%v", err)
		}
		total += n
	}
	if limit := c.sc.iterationLimit(); total > limit {
		c.errorf("expect.transitions", "%d transitions in all, but the run stops after %d iterations (iteration_limit), one transition each at most", total, limit)
	}
	for _, name := range sortedKeys(e.Counters) {
		if _, ok := counter(name); !ok {
			c.errorf("expect.counters."+name, "unknown counter (known: %s)", strings.Join(counterNames(), ", "))
		}
	}
	c.loopOnly()
	known := properties.InvariantNames()
	seen := map[string]bool{}
	for i, name := range e.Violated {
		at := fmt.Sprintf("expect.violated[%d]", i)
		switch {
		case !slices.Contains(known, name):
			c.errorf(at, "unknown invariant %q (known: %s)", name, strings.Join(known, ", "))
		case seen[name]:
			c.errorf(at, "%q is listed twice", name)
		}
		seen[name] = true
	}
	if e.Halted && e.Terminal == "" && !seen["termination"] {
		c.errorf("expect.violated", "a halted run breaks the termination invariant: list termination")
	}
	if e.Wire != nil {
		if strings.TrimSpace(e.Wire.Requests) == "" {
			c.errorf("expect.wire.requests", "missing: the request sequence, e.g. \"M:trunc → recovery → M:text\"")
		} else if entries, err := ParseWireRequests(e.Wire.Requests); err != nil {
			c.errorf("expect.wire.requests", "%v", err)
		} else {
			c.sc.wire = entries
		}
		names := apiNames()
		for _, api := range sortedKeys(e.Wire.API) {
			at := "expect.wire.api." + api
			entries, err := ParseWireRequests(e.Wire.API[api])
			switch {
			case !slices.Contains(names, api):
				c.errorf(at, "unknown API %q (known: %s)", api, strings.Join(names, ", "))
			case strings.TrimSpace(e.Wire.API[api]) == "":
				c.errorf(at, "missing: the request sequence of an agent that speaks %s", api)
			case err != nil:
				c.errorf(at, "%v", err)
			default:
				if c.sc.wireByAPI == nil {
					c.sc.wireByAPI = map[string][]WireEntry{}
				}
				c.sc.wireByAPI[api] = entries
			}
		}
	}
}

// loopOnly checks that expect.loop_only names, once each, an expectation
// written in the file that the wire shows: a counter of expect.counters
// that a foreign agent's requests show, or wire.
func (c *checker) loopOnly() {
	e := &c.sc.Expect
	seen := map[string]bool{}
	for i, name := range e.LoopOnly {
		at := fmt.Sprintf("expect.loop_only[%d]", i)
		k, isCounter := counter(name)
		switch {
		case seen[name]:
			c.errorf(at, "%q is listed twice", name)
		case name == LoopOnlyWire && e.Wire == nil:
			c.errorf(at, "there is no expect.wire to keep from an agent's verdict")
		case name == LoopOnlyWire:
		case !isCounter:
			c.errorf(at, "%q is neither wire nor a counter (counters the wire shows: %s)", name, strings.Join(CountersOnWire(), ", "))
		case k.OnWire == nil:
			c.errorf(at, "%q is never compared for an agent: the wire does not show it (it shows %s)", name, strings.Join(CountersOnWire(), ", "))
		default:
			if _, written := e.Counters[name]; !written {
				c.errorf(at, "%q is not in expect.counters", name)
			}
		}
		seen[name] = true
	}
}

// apiNames are the names of the APIs the fake server speaks.
func apiNames() []string {
	var out []string
	for _, api := range fakeapi.APIs() {
		out = append(out, api.Name())
	}
	return out
}

// parseTransitionEntry reads one entry of expect.transitions: a
// transition name, or "name * n" for n of them in a row.
func parseTransitionEntry(entry string) (loop.Transition, int, error) {
	name, times, repeated := strings.Cut(entry, "*")
	n := 1
	if repeated {
		var err error
		n, err = strconv.Atoi(strings.TrimSpace(times))
		if err != nil || n < 1 || n > MaxIterationLimit {
			return "", 0, fmt.Errorf("%q: the count after * must be a whole number from 1 to %d (a run takes at most %d iterations, one transition each)",
				entry, MaxIterationLimit, MaxIterationLimit)
		}
	}
	t := loop.Transition(strings.TrimSpace(name))
	if !t.Valid() {
		return "", 0, fmt.Errorf("unknown transition %q (known: %s)", t, transitionList())
	}
	return t, n, nil
}

// expandTransitions turns checked expect.transitions entries into the
// sequence they stand for.
func expandTransitions(entries []string) []loop.Transition {
	out := []loop.Transition{}
	for _, e := range entries {
		t, n, _ := parseTransitionEntry(e)
		for range n {
			out = append(out, t)
		}
	}
	return out
}

func transitionList() string {
	names := make([]string, len(loop.Transitions))
	for i, t := range loop.Transitions {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

func terminalList() string {
	names := make([]string, len(loop.Terminals))
	for i, t := range loop.Terminals {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
