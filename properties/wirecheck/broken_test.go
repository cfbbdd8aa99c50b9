package wirecheck

import (
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrokenAgentsAreCaughtAndShrunk runs, for each invariant, an agent
// broken to break it: the check must find it, name it, and shrink the
// schedule to at most three faults.
func TestBrokenAgentsAreCaughtAndShrunk(t *testing.T) {
	defer setFlag(t, "rapid.nofailfile", "true")()
	defer setFlag(t, "rapid.seed", "1")()
	for _, name := range InvariantNames() {
		t.Run(name, func(t *testing.T) {
			o := Options{MaxRetries: 3, RetryAfters: []time.Duration{0, 30 * time.Millisecond}}
			if name == "retry-after-honoured" {
				// the broken agent does not wait: a long retry-after keeps
				// its immediate retry far below the slack on a loaded machine
				o.RetryAfters = []time.Duration{0, time.Second}
			}
			if name == "session-ends" {
				o.SessionTimeout = 300 * time.Millisecond
				// only the hang is judged: on a machine loaded enough to
				// stretch a 300 ms session, a timing rule broken in one
				// play and not in its re-run made rapid call the case
				// flaky and stop before shrinking (seen once in CI)
				for _, other := range InvariantNames() {
					if other != name {
						o.Skip = append(o.Skip, other)
					}
				}
			}
			tb := &recordingTB{name: t.Name()}
			var f *finding
			ran := make(chan struct{})
			go func() {
				// rapid ends this goroutine when it reports the failure
				defer close(ran)
				check(tb, testAgent{maxRetries: 3, breaks: name}.run, o, func(x *finding) { f = x })
			}()
			<-ran
			require.NotNil(t, f, "the agent that breaks %s was not caught; rapid said: %s", name, tb.text())
			assert.Contains(t, brokenNames(f.fails), name, "the finding: %s", strings.Join(f.fails, "; "))
			assert.LessOrEqual(t, f.run.Case.Faults(), 3, "shrunk to at most three faults: %s", f.run.Case)
			assert.Contains(t, tb.text(), "the scenario file:", "the report carries the scenario")
			t.Logf("%s: %s", strings.Join(f.fails, "; "), f.run.Case)
		})
	}
}

func TestCorrectAgentKeepsEveryInvariant(t *testing.T) {
	a := testAgent{maxRetries: 3}
	TestAgent(t, a.run, Options{MaxRetries: 3})
}

// setFlag sets a test flag (rapid's) and returns what restores it.
func setFlag(t *testing.T, name, value string) func() {
	t.Helper()
	f := flag.Lookup(name)
	require.NotNil(t, f, "no flag -%s", name)
	old := f.Value.String()
	require.NoError(t, f.Value.Set(value), "set -%s", name)
	return func() { _ = f.Value.Set(old) }
}

// recordingTB is a rapid.TB that lets rapid fail without failing the
// test, keeping what it reports.
type recordingTB struct {
	name   string
	mu     sync.Mutex
	failed bool
	out    strings.Builder
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Name() string              { return r.name }
func (r *recordingTB) Logf(f string, a ...any)   { r.write(f, a...) }
func (r *recordingTB) Log(a ...any)              { r.write("%s", fmt.Sprint(a...)) }
func (r *recordingTB) Skipf(f string, a ...any)  { r.Fatalf("skip: "+f, a...) }
func (r *recordingTB) Skip(a ...any)             { r.Fatal(a...) }
func (r *recordingTB) SkipNow()                  { r.FailNow() }
func (r *recordingTB) Error(a ...any)            { r.Errorf("%s", fmt.Sprint(a...)) }
func (r *recordingTB) Errorf(f string, a ...any) { r.Fail(); r.write(f, a...) }
func (r *recordingTB) Fatalf(f string, a ...any) { r.Errorf(f, a...); r.FailNow() }
func (r *recordingTB) Fatal(a ...any)            { r.Error(a...); r.FailNow() }
func (r *recordingTB) FailNow()                  { r.Fail(); runtime.Goexit() }
func (r *recordingTB) Fail()                     { r.mu.Lock(); r.failed = true; r.mu.Unlock() }
func (r *recordingTB) Failed() bool              { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recordingTB) write(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(&r.out, f+"\n", a...)
}
func (r *recordingTB) text() string { r.mu.Lock(); defer r.mu.Unlock(); return r.out.String() }
