package properties

import (
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// findMinimal lets rapid search batches of cases from g for a run that
// shows is, shrink it, and returns the minimal case (the one rapid
// replays last, after shrinking) and how many cases ran. No fail file is
// written: the minimal case is kept as a fixture instead.
func findMinimal(t *testing.T, g *rapid.Generator[Case], shows func(Run) bool) (Case, int, bool) {
	t.Helper()
	restore := setFlag(t, "rapid.nofailfile", "true")
	defer restore()
	var (
		mu      sync.Mutex
		minimal Case
		found   bool
		ran     int
	)
	rec := &recordingTB{name: t.Name()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(rec, func(rt *rapid.T) {
			for i := range casesPerCheck {
				c := g.Draw(rt, "case "+itoa(i))
				r, err := c.Execute()
				mu.Lock()
				ran++
				mu.Unlock()
				if err != nil {
					rt.Fatalf("%v\n%s", err, c)
				}
				if shows(r) {
					mu.Lock()
					minimal, found = c, true
					mu.Unlock()
					rt.Fatalf("shows the finding")
				}
			}
		})
	}()
	<-done
	require.Empty(t, rec.harnessError(), "rapid")
	return minimal, ran, found
}

// setFlag sets a command-line flag for the rest of the test and returns
// what restores it.
func setFlag(t *testing.T, name, value string) func() {
	t.Helper()
	f := flag.Lookup(name)
	require.NotNil(t, f, "no flag -%s", name)
	old := f.Value.String()
	require.NoError(t, f.Value.Set(value), "set -%s", name)
	return func() { _ = f.Value.Set(old) }
}

// recordingTB is a rapid.TB that lets rapid fail without failing the
// test: rapid.Check reports the failure to it, and FailNow ends the
// goroutine rapid.Check runs in.
type recordingTB struct {
	name   string
	mu     sync.Mutex
	failed bool
	errors []string
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Name() string              { return r.name }
func (r *recordingTB) Logf(string, ...any)       {}
func (r *recordingTB) Log(...any)                {}
func (r *recordingTB) Skipf(f string, a ...any)  { r.Errorf("skip: "+f, a...); r.FailNow() }
func (r *recordingTB) Skip(a ...any)             { r.Errorf("skip: %v", fmt.Sprint(a...)); r.FailNow() }
func (r *recordingTB) SkipNow()                  { r.Errorf("skip"); r.FailNow() }
func (r *recordingTB) Error(a ...any)            { r.Errorf("%s", fmt.Sprint(a...)) }
func (r *recordingTB) Fatalf(f string, a ...any) { r.Errorf(f, a...); r.FailNow() }
func (r *recordingTB) Fatal(a ...any)            { r.Errorf("%s", fmt.Sprint(a...)); r.FailNow() }
func (r *recordingTB) FailNow()                  { r.Fail(); runtime.Goexit() }
func (r *recordingTB) Fail()                     { r.mu.Lock(); r.failed = true; r.mu.Unlock() }
func (r *recordingTB) Failed() bool              { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recordingTB) Errorf(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.errors = append(r.errors, fmt.Sprintf(f, a...))
}

// harnessError returns what rapid reported that is not the expected
// "failed after N tests" report of a found case: a panic, a flaky
// failure, too few valid tests.
func (r *recordingTB) harnessError() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.errors {
		if !strings.HasPrefix(e, "[rapid] failed after") && e != "shows the finding" {
			return e
		}
	}
	return ""
}
