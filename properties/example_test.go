package properties_test

import (
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
)

// exampleT stands in for the *testing.T of a user's test, so the example
// runs: properties.Test takes any rapid.TB.
type exampleT struct{ failed bool }

func (t *exampleT) Helper()                   {}
func (t *exampleT) Name() string              { return "TestMyPolicy" }
func (t *exampleT) Logf(string, ...any)       {}
func (t *exampleT) Log(...any)                {}
func (t *exampleT) Skipf(string, ...any)      {}
func (t *exampleT) Skip(...any)               {}
func (t *exampleT) SkipNow()                  {}
func (t *exampleT) Errorf(f string, a ...any) { t.failed = true; fmt.Printf(f+"\n", a...) }
func (t *exampleT) Error(a ...any)            { t.failed = true; fmt.Println(a...) }
func (t *exampleT) Fatalf(f string, a ...any) { t.Errorf(f, a...) }
func (t *exampleT) Fatal(a ...any)            { t.Error(a...) }
func (t *exampleT) FailNow()                  { t.failed = true }
func (t *exampleT) Fail()                     { t.failed = true }
func (t *exampleT) Failed() bool              { return t.failed }

// A user's own bound, checked with every invariant over generated runs of
// the user's policy. In a test this is
//
//	func TestMyPolicy(t *testing.T) { properties.Test(t, opts) }
//
// The claude-code profile allows 8 stop-hook blocks in a row; against the
// bound of 3 Test fails within a few dozen checks and prints the shrunk
// case, the trace around the fourth block and the replay command. With
// the cap lowered to 3 the policy keeps the bound.
func ExampleTest() {
	atMost3 := properties.Property{
		Name: "at most 3 stop-hook blocks in a row",
		Check: func(r properties.Run) error {
			for i, e := range r.Result.Trace {
				if x, ok := e.(loop.StopHook); ok && x.Outcome == loop.HookBlock && x.BlocksInRow > 3 {
					return properties.Violation{Invariant: "my bound", Event: i, Detail: fmt.Sprintf("%d blocks in a row", x.BlocksInRow)}
				}
			}
			return nil
		},
	}
	policy, err := loop.ClaudeCode().With("stop_hook_block_cap", "3")
	if err != nil {
		fmt.Println(err)
		return
	}
	t := &exampleT{}
	properties.Test(t, properties.Options{Policy: policy, Properties: []properties.Property{atMost3}})
	fmt.Println("failed:", t.Failed())
	// Output: failed: false
}

// Check runs every invariant of docs/spec.md §5 over a finished run. Here the
// seed profile meets a stop hook that always blocks: the run never ends
// (a known finding of the profile, fixed by stop_hook_block_cap).
func ExampleCheck() {
	c := properties.Case{
		Policy:    loop.Seed(),
		Primary:   loop.ModelInfo{Name: "sonnet", ContextWindow: 200_000, MaxOutputTokens: 64_000},
		Script:    []fakemodel.Step{{Text: "done", Repeat: fakemodel.Forever}},
		StopHooks: []fakemodel.StopOutcome{{Block: "tests still fail"}},
		Initial:   []loop.Message{loop.UserText("fix the test")},
	}
	r, err := c.Execute()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range properties.Check(r) {
		fmt.Println(v)
	}
	// Output: termination: halted by the iteration limit after 100 iterations without a terminal
}
